#version 330 core
// The sky gradient (vwSky in sky_common.glsl).

in vec3 vDirection;

out vec4 fragColor;

void main()
{
    fragColor = vwOutput( vwSky( vDirection ), 1.0 );
}
