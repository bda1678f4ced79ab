#version 330 core
// Debug lines: linear colour encoded like the shapes'.

in vec4 vColor;

out vec4 fragColor;

void main()
{
    fragColor = vec4( pow( clamp( vColor.rgb, 0.0, 1.0 ), vec3( 1.0 / 2.2 ) ), vColor.a );
}
