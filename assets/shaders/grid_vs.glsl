#version 330 core
// A plane drawn as one large square (a 4-vertex strip, no buffers) centred on uOrigin.

uniform mat4 uViewProjection;
uniform mat4 uShadowMatrix;
uniform float uShadowNormalOffset;
uniform vec3 uOrigin;  // centre of the square, on the plane
uniform vec3 uAxisU;   // unit, in the plane
uniform vec3 uAxisV;   // unit, in the plane, normal = cross( uAxisU, uAxisV )
uniform vec3 uNormal;  // unit
uniform float uHalfSize;

out vec3 vWorld;
out vec2 vPlane;  // coordinates along uAxisU, uAxisV, m: the grid lines are at whole metres
out vec2 vSquare; // -1 .. 1 across the square
out vec3 vShadow;

void main()
{
    vec2 corner = vec2( ( gl_VertexID & 1 ) != 0 ? 1.0 : -1.0, ( gl_VertexID & 2 ) != 0 ? 1.0 : -1.0 );
    vec3 world = uOrigin + uHalfSize * ( corner.x * uAxisU + corner.y * uAxisV );
    vWorld = world;
    vPlane = vec2( dot( world, uAxisU ), dot( world, uAxisV ) );
    vSquare = corner;
    vShadow = ( uShadowMatrix * vec4( world + uShadowNormalOffset * uNormal, 1.0 ) ).xyz;
    gl_Position = uViewProjection * vec4( world, 1.0 );
}
