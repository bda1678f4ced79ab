// SPDX-License-Identifier: MIT
#pragma once

// Islands and sleeping (docs/architecture.md, "Islands and sleeping").
//
// An island is a set of dynamic bodies linked by edges: contacts that touch (a manifold with
// points) and joints. Static and kinematic bodies do not join islands, so a pile on the ground is
// one island and two piles on the same ground are two. The islands are found again at the end of
// every step by a union-find over the body rows (cnUpdateIslands); the pass is linear in bodies and
// edges and costs a few hundredths of a millisecond for a thousand boxes (docs/architecture.md).
//
// Sleeping (cnWorldDef.enableSleep): a dynamic body's rest timer grows by the time step while its
// linear speed is at most CN_SLEEP_LINEAR_SPEED and its angular speed at most
// CN_SLEEP_ANGULAR_SPEED, and is reset otherwise. An island whose every body has rested for
// CN_TIME_TO_SLEEP goes to sleep: its bodies keep their pose bit for bit, their velocities are
// zeroed, and integration, broadphase moves and the solve skip them. Their contacts stay in the
// cache with their warm-start impulses, and a contact between two sleeping (or a sleeping and a
// static) body is not collided again. A sleeping island is kept as a list of body slots, so that
// waking it costs its size.
//
// Waking: a touching contact between a sleeping body and an awake dynamic one, or a moving
// kinematic one (found by the narrowphase: the island joins the solve of the same substep); the
// body setters and impulses (body.c), shape changes (shape.c), destroying a body or changing its
// type (the bodies touching it wake too), cnBody_SetAwake, and writes into the bulk arrays between
// steps or by user systems (a velocity, force or torque that is not zero, a moved transform).

#include <stdbool.h>

typedef struct cnWorld cnWorld;

// Sleep thresholds (Box2D's): 5 cm/s, 2 degrees per second, half a second at rest.
#define CN_SLEEP_LINEAR_SPEED  0.05
#define CN_SLEEP_ANGULAR_SPEED ( 2.0 * 3.14159265358979323846 / 180.0 )
#define CN_TIME_TO_SLEEP       0.5

// The island pass of a step (stage 8): rest timers, islands, islands put to sleep, and the step
// report's counts. Needs the world's arena. False when out of memory (nothing went to sleep).
bool cnUpdateIslands( cnWorld* world, double timeStep );

// An edge of the island pass between body rows `rowA` and `rowB`, for every kind of link between
// two bodies (contacts are added by the pass itself; a joint is added the same way, from the loop
// over joints in cnAddIslandEdges, island.c). Does nothing outside the pass. Two dynamic bodies join
// one island; a sleeping one linked to an awake one wakes; a dynamic body linked to a moving
// kinematic one cannot fall asleep; static bodies link nothing.
void cnIslandAddEdge( cnWorld* world, int rowA, int rowB );

// Wake the island of body `row` (nothing when it is awake) and reset its rest timer.
void cnWakeBody( cnWorld* world, int row );

// Wake body `row` and every body that has a touching contact with it: for a change to a body that
// its neighbours rest on (destroyed, moved, type or shapes changed).
void cnWakeTouching( cnWorld* world, int row );

// Wake every sleeping island (a change of gravity or of the dynamics mode).
void cnWakeAll( cnWorld* world );

// The contact touches, and one body is asleep while the other moves (awake and dynamic, or
// kinematic with a velocity): the sleeping island wakes. Called by the narrowphase.
void cnWakeByContact( cnWorld* world, int rowA, int rowB );

// Put body `row`'s island (the bodies linked to it by touching contacts) to sleep now, whatever
// their speeds (cnBody_SetAwake false). False when out of memory.
bool cnSleepIslandOf( cnWorld* world, int row );

// A sleeping body whose velocity, force or torque is not zero (written into the bulk arrays or by
// a user system: sleeping bodies take no gravity), or whose transform is not the one the last step
// ended with, wakes with its island (and, when moved, the bodies touching it). Run at the start of
// a step and after the force systems.
void cnWakeWritten( cnWorld* world );

// Free the pool of sleeping islands (cnDestroyWorld).
void cnDestroyIslands( cnWorld* world );
