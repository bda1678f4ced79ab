#version 330 core
// Shadow-map pass: the instanced shapes' depth as seen from the light (same placement as mesh_vs).

layout( location = 0 ) in vec3 aPosition;
layout( location = 2 ) in vec3 iPosition;
layout( location = 3 ) in vec4 iRotation;
layout( location = 4 ) in vec3 iScale;

uniform mat4 uLightViewProjection;

void main()
{
    vec4 q = normalize( iRotation );
    vec3 v = aPosition * iScale;
    vec3 t = 2.0 * cross( q.yzw, v );
    vec3 world = iPosition + v + q.x * t + cross( q.yzw, t );
    gl_Position = uLightViewProjection * vec4( world, 1.0 );
}
