// SPDX-License-Identifier: MIT
// placeholder while the file is written
typedef int cnPlaceholder_ccd_support;
