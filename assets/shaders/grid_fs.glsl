#version 330 core
// A plane with a procedural, anti-aliased grid: 1 m minor lines, 10 m major lines, each about a
// pixel wide at any distance (fwidth) and fading out before they get denser than the pixels.
// Lit, shadowed and fogged like the shapes; the square's rim fades into the sky behind it (drawn
// opaque: the sky is drawn after it).

in vec3 vWorld;
in vec2 vPlane;
in vec2 vSquare;
in vec3 vShadow;

uniform vec3 uNormal;

out vec4 fragColor;

const vec3 vwPlaneColor = vec3( 0.50, 0.50, 0.49 );
const vec3 vwMinorColor = vec3( 0.34, 0.34, 0.34 );
const vec3 vwMajorColor = vec3( 0.20, 0.20, 0.21 );

/// Coverage of lines at the whole numbers of `coord`, `width` pixels wide.
float vwGridLines( vec2 coord, float width )
{
    vec2 perPixel = max( fwidth( coord ), vec2( 1e-6 ) );
    vec2 pixels = abs( fract( coord - 0.5 ) - 0.5 ) / perPixel;
    float coverage = 1.0 - clamp( min( pixels.x, pixels.y ) - 0.5 * width + 0.5, 0.0, 1.0 );
    // lines closer than ~12 pixels fade out, gone at 5: denser ones would alias
    float density = max( perPixel.x, perPixel.y );
    return coverage * ( 1.0 - smoothstep( 0.08, 0.2, density ) );
}

void main()
{
    float minor = vwGridLines( vPlane, 1.0 );
    float major = vwGridLines( vPlane * 0.1, 1.6 );
    vec3 albedo = mix( mix( vwPlaneColor, vwMinorColor, minor ), vwMajorColor, major );

    vec3 normal = dot( uEye - vWorld, uNormal ) >= 0.0 ? uNormal : -uNormal;
    vec3 color = vwShade( albedo, normal, vWorld, vwShadow( vShadow ), 0.08 );
    float rim = smoothstep( 0.75, 1.0, max( abs( vSquare.x ), abs( vSquare.y ) ) );
    fragColor = vwOutput( mix( vwFog( color, vWorld ), vwSky( vWorld - uEye ), rim ), 1.0 );
}
