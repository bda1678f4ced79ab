// SPDX-License-Identifier: MIT
// The one translation unit that holds stb_image_write's implementation (PNG screenshots).
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_UNUSED
#include <stb_image_write.h>
