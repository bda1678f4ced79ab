// SPDX-License-Identifier: MIT
#pragma once

// One substep's rows (contact_rows.c): the solver problem a pass of contact_solver.c solves, and
// the maps from its rows back to the contact cache and the bodies. The bodies' W blocks, the
// contacts' rows (colour order, laid out, then written on the world's workers) with their warm
// start, and after the solve the impulses back into the cache, the hit events and the velocities.
// The oracle (contact_oracle.c) and the joints (joint_solver.c) append rows to the same problem.

#include "cairn/solver.h"
#include "cairn/types.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct cnArena cnArena;
typedef struct cnWorld cnWorld;
typedef struct cnStepScratch cnStepScratch;

// a row the oracle added: no manifold point to warm-start
#define CN_RECURSION_SLOT 255
// a joint's row: its impulse goes back to the joint (joint_solver.c)
#define CN_JOINT_SLOT 254

// One substep's problem and the maps from its rows back to the contact cache, all from the step
// arena.
typedef struct cnContactRows
{
    cnSolverProblem problem; // points at the arrays below
    double* lambda;          // (rowCapacity)
    // where each row's impulse goes back to: contact, point and slot (0 normal, 1-2 tangents)
    int32_t* contact;
    uint8_t* point;
    uint8_t* slot;
    cnVec3* direction; // the row's world direction (normal or tangent)
    double* push;      // separation a penetrating normal row pushes out in the soft pass, else 0
    double* velocity;  // each row's J v before the solve (problem.velocity; contact rows only)
    // bodies: solver index of each body row (-1 unless dynamic), and back
    int bodyCount;
    int* solverIndex;
    int* rowOf;
    double* wLinear;
    double* wAngular;
    // the contacts with rows (cnPrepareContacts): contactOrder[n] is a contact of the cache and its
    // rows start at contactRowStart[n], 3 (or 1 without friction) a manifold point
    int contactCount;
    const int* contactOrder;
    const int* contactRowStart;
} cnContactRows;

// ---- prepare ----------------------------------------------------------------------------------------

// The arrays of `rows` for up to `rowCapacity` rows and `groupCapacity` groups over `bodyRows` body
// rows, from `arena`; false when it ran out.
bool cnAllocRows( cnArena* arena, cnContactRows* rows, int bodyRows, int rowCapacity, int groupCapacity );

// solver indices of the dynamic bodies, and their W blocks
void cnPrepareBodies( const cnWorld* world, cnContactRows* rows );

// row i along `d` between body rows ra and rb (-1: the ground) at lever arms rA, rB, with
// b = J v (every moving body, kinematic ones included) + bias
int cnAddRow( cnContactRows* rows, const cnWorld* world, int i, int ra, int rb, cnVec3 rA, cnVec3 rB,
              cnVec3 d, double bias );

// A_ii = J_i W J_i^T of row i of an assembled problem (its bodies' W blocks; a row's two sides are
// different bodies, or one and the ground)
double cnProblemRowDiagonal( const cnSolverProblem* problem, int row );

// `model`: the friction model of a contact group (the world's), cn_frictionPyramid for the others
void cnAddGroup( cnContactRows* rows, int index, int firstRow, int rowCount, cnGroupKind kind, double mu,
                 cnFrictionModel model );

// The contacts' rows: a group per manifold point, a contact (normal and two tangents) or a
// frictionless normal for a solver without friction rows; the warm start from the cache. The
// contacts come in colour order (cnColorContacts); where each one's rows start is laid out first,
// then the rows are written on the world's workers. `positional`: every point ends the step just
// touching (b = J v + separation / dt), as in an overdamped world. `touching`: otherwise a point
// with a separation up to this has no speculative bias (CN_TOUCH_TOLERANCE for the hard problem, 0
// for the soft one). Returns true when some point had friction the solver cannot take; false with
// *outOfMemory set when the arena ran out.
bool cnPrepareContacts( const cnWorld* world, cnContactRows* rows, double timeStep,
                        const cnStepScratch* scratch, bool friction, bool warmStart, bool positional,
                        double touching, cnArena* arena, bool* outOfMemory );

// ---- store and apply --------------------------------------------------------------------------------

// Hit events (cnContactHitEvent): a contact of a shape that asks for them that had no normal impulse
// after its last solve (new, speculative, or resting without pressing) and has one now raises one
// when the fastest approaching of its points with an impulse came in faster than the world's
// threshold. Called before the impulses are stored (the cache still holds the last solve's, carried
// to this update's points) and before the velocities change (the bodies still have the predicted
// ones: the approach speed is the relative normal velocity before the solve).
void cnRaiseHitEvents( cnWorld* world, const cnContactRows* rows, const double* lambda );

// impulses back into the contact cache (the recursion's rows have no manifold point)
void cnStoreImpulses( cnWorld* world, const cnContactRows* rows, const double* lambda );

// velocities += delta; the impulse's angular momentum; the push (soft - relaxed) when there is one
void cnApplyVelocities( cnWorld* world, const cnContactRows* rows, const double* delta,
                        const double* softDelta, cnStepScratch* scratch );

// A solve that gave nothing usable: the bodies it acts on keep the velocities they had before this
// substep (and the momentum that goes with them); the others keep their predicted motion.
void cnKeepPreviousVelocities( cnWorld* world, const cnContactRows* rows, cnStepScratch* scratch );

// `count` doubles (none when count <= 0); the passes and the projection copy impulses with it
static inline void cnCopyDoubles( double* to, const double* from, int count )
{
    if ( count > 0 )
    {
        memcpy( to, from, (size_t)count * sizeof( double ) );
    }
}
