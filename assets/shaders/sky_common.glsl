// Shared by the sky, mesh and grid fragment shaders: render.c splices it in right after their
// #version line (and VW_SHADOWS, 0 or 1). The sky gradient, the light model (sun + hemisphere
// ambient + Blinn-Phong), the shadow lookup, distance fog and the output encoding. Colours are
// linear until vwOutput.

uniform vec3 uUp;             // world up, unit
uniform vec3 uLightDirection; // unit, from the light towards the scene
uniform vec3 uEye;            // camera position, world
uniform vec2 uFog;            // distances where fog starts and where it is complete
#if VW_SHADOWS
uniform sampler2DShadow uShadowMap;
uniform float uShadowTexel; // one texel of the shadow map in texture coordinates
#endif

const vec3 vwZenith = vec3( 0.10, 0.22, 0.48 );
const vec3 vwHorizon = vec3( 0.62, 0.70, 0.80 );
const vec3 vwNadir = vec3( 0.26, 0.26, 0.27 );
const vec3 vwSunColor = vec3( 1.00, 0.95, 0.86 ) * 1.05;
const vec3 vwAmbientSky = vec3( 0.30, 0.35, 0.44 );
const vec3 vwAmbientGround = vec3( 0.14, 0.13, 0.12 );

// Software renderers (llvmpipe) pay for every pow (a log and an exponential): the shaders use
// sqrt and repeated squaring instead where an exact exponent does not matter.

/// Sky colour seen along a direction (need not be unit).
vec3 vwSky( vec3 direction )
{
    vec3 d = normalize( direction );
    float h = dot( d, uUp );
    vec3 color = h >= 0.0 ? mix( vwHorizon, vwZenith, sqrt( h ) )
                          : mix( vwHorizon, vwNadir, smoothstep( 0.0, 0.35, -h ) );
    // a soft glow around the sun: sun^32 and a tighter sun^256
    float sun = max( dot( d, -uLightDirection ), 0.0 );
    sun *= sun;
    sun *= sun;
    sun *= sun;
    sun *= sun;
    float glow = sun * sun;
    float halo = glow * glow;
    halo *= halo;
    halo *= halo;
    return color + vwSunColor * ( 0.16 * glow + 0.35 * halo );
}

/// Fraction of sunlight reaching a point whose shadow-map coordinates are `coord` (texture xy,
/// depth z): four bilinear comparisons on a rotated grid, a soft 4x4-texel footprint.
float vwShadow( vec3 coord )
{
#if !VW_SHADOWS
    return 1.0;
#else
    if ( coord.z >= 1.0 )
    {
        return 1.0;
    }
    float t = uShadowTexel;
    float sum = texture( uShadowMap, coord + vec3( -1.5 * t, -0.5 * t, 0.0 ) );
    sum += texture( uShadowMap, coord + vec3( 0.5 * t, -1.5 * t, 0.0 ) );
    sum += texture( uShadowMap, coord + vec3( 1.5 * t, 0.5 * t, 0.0 ) );
    sum += texture( uShadowMap, coord + vec3( -0.5 * t, 1.5 * t, 0.0 ) );
    return 0.25 * sum;
#endif
}

/// Lit colour of a surface point: albedo, unit normal facing the viewer, position, shadow.
vec3 vwShade( vec3 albedo, vec3 normal, vec3 world, float shadow, float specular )
{
    vec3 l = -uLightDirection;
    vec3 v = normalize( uEye - world );
    float diffuse = max( dot( normal, l ), 0.0 );
    vec3 ambient = mix( vwAmbientGround, vwAmbientSky, 0.5 + 0.5 * dot( normal, uUp ) );
    vec3 h = normalize( l + v );
    // Blinn-Phong, exponent 32
    float highlight = max( dot( normal, h ), 0.0 );
    highlight *= highlight;
    highlight *= highlight;
    highlight *= highlight;
    highlight *= highlight;
    highlight *= highlight * ( diffuse > 0.0 ? specular : 0.0 );
    return albedo * ( ambient + vwSunColor * ( diffuse * shadow ) ) + vwSunColor * ( highlight * shadow );
}

/// Blend towards the sky behind a point as it gets far from the eye.
vec3 vwFog( vec3 color, vec3 world )
{
    float f = smoothstep( uFog.x, uFog.y, distance( world, uEye ) );
    return mix( color, vwSky( world - uEye ), f * f );
}

/// Encode for the (non-sRGB) framebuffer: gamma 2.2 (1.138 sqrt(c) - 0.138 c is c^(1/2.2)
/// within 3/255, exact at 0 and 1) and a little dither against banding.
vec4 vwOutput( vec3 linear, float alpha )
{
    vec3 l = clamp( linear, 0.0, 1.0 );
    vec3 c = 1.138 * sqrt( l ) - 0.138 * l;
    float noise = fract( 52.9829189 * fract( dot( gl_FragCoord.xy, vec2( 0.06711056, 0.00583715 ) ) ) );
    return vec4( c + ( noise - 0.5 ) / 255.0, alpha );
}
