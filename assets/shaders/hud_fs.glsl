#version 330 core
// The HUD: vertex colour, with line edges faded over one pixel (antialiasing).

in vec2 vEdge;
in vec4 vColor;

out vec4 fragColor;

void main()
{
    float coverage = clamp( vEdge.y + 0.5 - abs( vEdge.x ), 0.0, 1.0 );
    fragColor = vec4( vColor.rgb, vColor.a * coverage );
}
