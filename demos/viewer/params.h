// SPDX-License-Identifier: MIT
// The HUD's parameter editor without OpenGL: what Left/Right does to a solver parameter, by its
// type (cnParamType). In the core library, so that the tests reach it.
#pragma once

#include "cairn/solver.h"

/// The value Left (`direction` -1) or Right (+1) gives a parameter now at `value`:
/// - a choice steps to the previous or next name, wrapping around;
/// - a toggle flips;
/// - an integer doubles or halves (Right from 0 gives 1);
/// - a number moves by a decade when its default is a small positive quantity (a tolerance: from
///   0, Right gives the default), doubles or halves when its default is a whole number of at
///   least 1 with room to 100 (divergence_factor), and moves by 0.1 otherwise (relaxation).
/// Integers and numbers are kept in [minValue, maxValue], and numbers rounded to 12 significant
/// digits (0.1 steps stay 1.1, not 1.1000000000000001). The caller still checks the result
/// (cnCheckSolverParam) before it sets it.
double vwNudgeParamValue( const cnSolverParam* param, double value, int direction );
