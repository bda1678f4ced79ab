#version 330 core
// The HUD: pixel positions (origin top left) to clip space. aEdge carries, for line quads, the
// distance across the line in pixels (x) and the line's half thickness (y); the fragment shader
// turns it into coverage. Rectangles and text pass a huge half thickness: fully covered.

layout( location = 0 ) in vec2 aPosition;
layout( location = 1 ) in vec2 aEdge;
layout( location = 2 ) in vec4 aColor;

uniform vec2 uScreen; // framebuffer size, pixels

out vec2 vEdge;
out vec4 vColor;

void main()
{
    vec2 ndc = aPosition / uScreen * 2.0 - 1.0;
    gl_Position = vec4( ndc.x, -ndc.y, 0.0, 1.0 );
    vEdge = aEdge;
    vColor = aColor;
}
