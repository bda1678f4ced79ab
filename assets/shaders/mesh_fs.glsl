#version 330 core
// Lit shapes (vwShade in sky_common.glsl).

in vec3 vWorld;
in vec3 vNormal;
in vec4 vColor;
in vec3 vShadow;

out vec4 fragColor;

void main()
{
    vec3 normal = normalize( vNormal );
    vec3 color = vwShade( vColor.rgb, normal, vWorld, vwShadow( vShadow ), 0.35 );
    fragColor = vwOutput( vwFog( color, vWorld ), vColor.a );
}
