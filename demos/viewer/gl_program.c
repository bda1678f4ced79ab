// SPDX-License-Identifier: MIT
// Compile and link GLSL programs, printing the driver's log on failure.
#include "gl_program.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vwPrintLog( GLuint object, bool isProgram )
{
    GLint length = 0;
    if ( isProgram )
    {
        glGetProgramiv( object, GL_INFO_LOG_LENGTH, &length );
    }
    else
    {
        glGetShaderiv( object, GL_INFO_LOG_LENGTH, &length );
    }
    char* log = length > 0 ? malloc( (size_t)length ) : NULL;
    if ( log == NULL )
    {
        fprintf( stderr, "(no log)\n" );
        return;
    }
    if ( isProgram )
    {
        glGetProgramInfoLog( object, length, NULL, log );
    }
    else
    {
        glGetShaderInfoLog( object, length, NULL, log );
    }
    fprintf( stderr, "%s\n", log );
    free( log );
}

// one shader: the #version line, the defines, the common part (as source string 1, from line
// 1001), then the rest of the source from its line 2
static GLuint vwCompileShader( GLenum type, const char* name, const char* source, const char* defines,
                               const char* common )
{
    const char* body = strchr( source, '\n' );
    body = body != NULL ? body + 1 : source + strlen( source );
    const GLchar* parts[6] = { source,           defines != NULL ? defines : "",
                               "#line 1001 1\n", common != NULL ? common : "",
                               "\n#line 2 0\n",  body };
    GLint lengths[6] = { (GLint)( body - source ), -1, -1, -1, -1, -1 };

    GLuint shader = glCreateShader( type );
    glShaderSource( shader, 6, parts, lengths );
    glCompileShader( shader );

    GLint ok = GL_FALSE;
    glGetShaderiv( shader, GL_COMPILE_STATUS, &ok );
    if ( ok == GL_FALSE )
    {
        fprintf( stderr, "cairn-viewer: shader %s failed to compile%s:\n", name,
                 common != NULL ? " (lines 1001 on are the common part's 1 on)" : "" );
        vwPrintLog( shader, false );
        glDeleteShader( shader );
        return 0;
    }
    return shader;
}

GLuint vwLinkProgram( const char* name, const char* vertexSource, const char* fragmentSource,
                      const char* defines, const char* common )
{
    char vertexName[80];
    char fragmentName[80];
    snprintf( vertexName, sizeof( vertexName ), "%s_vs", name );
    snprintf( fragmentName, sizeof( fragmentName ), "%s_fs", name );
    GLuint vertex = vwCompileShader( GL_VERTEX_SHADER, vertexName, vertexSource, defines, NULL );
    GLuint fragment = vwCompileShader( GL_FRAGMENT_SHADER, fragmentName, fragmentSource, defines, common );
    if ( vertex == 0 || fragment == 0 )
    {
        glDeleteShader( vertex );
        glDeleteShader( fragment );
        return 0;
    }

    GLuint program = glCreateProgram();
    glAttachShader( program, vertex );
    glAttachShader( program, fragment );
    glLinkProgram( program );
    glDetachShader( program, vertex );
    glDetachShader( program, fragment );
    glDeleteShader( vertex );
    glDeleteShader( fragment );

    GLint ok = GL_FALSE;
    glGetProgramiv( program, GL_LINK_STATUS, &ok );
    if ( ok == GL_FALSE )
    {
        fprintf( stderr, "cairn-viewer: program %s (%s + %s) failed to link:\n", name, vertexName,
                 fragmentName );
        vwPrintLog( program, true );
        glDeleteProgram( program );
        return 0;
    }
    return program;
}
