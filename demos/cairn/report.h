// SPDX-License-Identifier: MIT
#pragma once

// What `cairn run` measured, and the JSON report written from it (docs/cli.md, "The report").

#include "cairn/cairn.h"
#include "cairn/scene.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stdint.h>

/// Steps with warnings kept for the report; the count goes on past it.
#define MAX_REPORTED_STEP_WARNINGS 100
/// Scene-load warnings kept for the report.
#define MAX_REPORTED_LOAD_WARNINGS 100

typedef struct StepWarningRecord
{
    int64_t step; ///< 1-based
    uint32_t flags;
} StepWarningRecord;

/// The grading merits of a step report (cnStepReport), in the report's order.
enum
{
    meritNaturalMap,
    meritCone,
    violationSignorini,
    violationCoulomb,
    violationDissipation,
    meritCount
};

/// The report's key of each merit ("merit_natural_map", ...), in the order above.
extern const char* const meritKeys[meritCount];

/// The merits of one step report, in the order above.
void StepMerits( const cnStepReport* report, double merits[meritCount] );

/// What --dump-problem wrote (or failed to write).
typedef struct ProblemDump
{
    /// 1-based step whose problem is written; 0: no dump asked for.
    int64_t step;
    const char* path;
    /// Solves of that step seen by the problem callback (one per substep with contacts); the file
    /// holds the last.
    int solves;
    /// What the last write returned, and why when it failed.
    cnStatus status;
    char message[512];
    /// The problem written and how the world's final pass on it ended (cnSolverStats).
    int rows;
    int groups;
    int iterations;
    cnSolveStatus solveStatus;
    double residual;
    /// Iterations of the main and relax passes of the whole step (cnStepReport).
    int stepIterations;
    int stepRelaxIterations;
    /// Time spent writing, s: taken out of the stepping loop's times.
    double wallSeconds;
    double cpuSeconds;
} ProblemDump;

typedef struct RunResult
{
    const char* scenePath;
    int64_t steps;
    double timeStep;
    char solver[32];
    double simulatedTime;
    /// Wall and process CPU time of the stepping loop alone, s.
    double wallSeconds;
    double cpuSeconds;
    int contactsMax;
    double maxPenetration;
    double iterationsSum;
    double relaxIterationsSum;
    /// The ReLCP recursion summed over the run: levels that added rows, the rows, rows refused; the
    /// deepest overlap left at an accepted trial pose (NaN when no solve asked the oracle).
    double recursionLevelsSum;
    double recursionRowsSum;
    double recursionRefusedSum;
    double recursionOverlapMax;
    /// Substeps of the last step (the world's setting, or its automatic count).
    int substeps;
    /// Islands and sleeping after the last step (cnStepReport), and the island pass's time summed.
    int awakeFinal;
    int sleepingFinal;
    int islandsFinal;
    int sleepingIslandsFinal;
    double islandMsSum;
    /// NaN when no step was taken.
    double residualFinal;
    /// The merits of the last step, and the largest of each over the run (NaN steps skipped);
    /// NaN when no step was taken.
    double merits[meritCount];
    double meritsMax[meritCount];
    double kineticEnergyInitial;
    double kineticEnergyFinal;
    /// Steps that raised at least one warning, and steps that raised each warning bit.
    int64_t warningCount;
    int64_t warningBitCounts[32];
    int stepWarningsKept;
    StepWarningRecord stepWarnings[MAX_REPORTED_STEP_WARNINGS];
    /// Warnings of the scene loader, in order.
    int loadWarningCount;
    int loadWarningsKept;
    char loadWarnings[MAX_REPORTED_LOAD_WARNINGS][CN_SCENE_TEXT_CAPACITY];
    /// Lines the world logged, and those the rate limit kept off stderr.
    int64_t logLineCount;
    int64_t logSuppressedCount;
    ProblemDump dump;
    /// A scene with a colony: its statistics after the last step (cxColony_GetStats).
    bool hasColony;
    int colonyCells;
    int colonyGenerations;
    double colonyRadius;
    double colonyVolumeFraction;
} RunResult;

/// Names of the cnStepWarning bits set in `flags`, up to `capacity`; returns how many were set.
/// Unknown bits are named "bit_N" from a static table.
int StepWarningNames( uint32_t flags, const char** names, int capacity );

/// "3 steps with warnings (solver_diverged 2, speed_clamped 1)" or "0 steps with warnings", then
/// ", N load warnings" when there were any: the end of the summary line.
void FormatWarningSummary( const RunResult* result, char* buffer, int size );

/// Write the report of a finished run of `worldId`. On failure writes a reason to `message`.
bool WriteReport( const char* path, const RunResult* result, cnWorldId worldId, char* message, int size );

/// Add a number that reads back exactly (NaN and infinity become null). False when out of memory.
bool AddNumber( cJSON* object, const char* key, double value );
/// Add [x, y, z].
bool AddVec3( cJSON* object, const char* key, cnVec3 v );
/// Write a JSON document to a file. On failure writes a reason to `message`.
bool WriteJson( const char* path, cJSON* root, char* message, int size );
