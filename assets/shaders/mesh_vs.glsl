#version 330 core
// Instanced shapes: each instance places the mesh in the world by position, rotation (unit
// quaternion w, x, y, z) and per-axis scale. Normals follow the inverse transpose: R * (n / scale).

layout( location = 0 ) in vec3 aPosition;
layout( location = 1 ) in vec3 aNormal;
layout( location = 2 ) in vec3 iPosition;
layout( location = 3 ) in vec4 iRotation;
layout( location = 4 ) in vec3 iScale;
layout( location = 5 ) in vec4 iColor;

uniform mat4 uViewProjection;
uniform mat4 uShadowMatrix;        // world to shadow-map texture coordinates and depth
uniform float uShadowNormalOffset; // receivers look up their shadow this far out along the normal

out vec3 vWorld;
out vec3 vNormal;
out vec4 vColor;
out vec3 vShadow;

vec3 vwRotate( vec4 q, vec3 v )
{
    vec3 t = 2.0 * cross( q.yzw, v );
    return v + q.x * t + cross( q.yzw, t );
}

void main()
{
    vec4 q = normalize( iRotation );
    vec3 world = iPosition + vwRotate( q, aPosition * iScale );
    vec3 normal = normalize( vwRotate( q, normalize( aNormal / max( abs( iScale ), vec3( 1e-6 ) ) ) ) );
    vWorld = world;
    vNormal = normal;
    vColor = iColor;
    vShadow = ( uShadowMatrix * vec4( world + uShadowNormalOffset * normal, 1.0 ) ).xyz;
    gl_Position = uViewProjection * vec4( world, 1.0 );
}
