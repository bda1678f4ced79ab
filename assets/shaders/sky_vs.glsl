#version 330 core
// The sky: one triangle covering the screen at the far plane (drawn last among the opaque things,
// it fills what the depth test left clear); each corner carries its world view direction, which
// is affine in screen space, so the interpolated direction is exact.

uniform mat3 uCameraToWorld; // the view's rotation, inverted
uniform vec4 uProjection;    // P[0][0], P[1][1], P[2][0], P[2][1]
uniform bool uOrthographic;

out vec3 vDirection;

void main()
{
    vec2 ndc = vec2( gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0 );
    vec3 ray = uOrthographic ? vec3( 0.0, 0.0, -1.0 )
                             : vec3( ( ndc + uProjection.zw ) / uProjection.xy, -1.0 );
    vDirection = uCameraToWorld * ray;
    gl_Position = vec4( ndc, 1.0, 1.0 );
}
