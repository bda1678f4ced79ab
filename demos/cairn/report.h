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
    /// NaN when no step was taken.
    double residualFinal;
    double kineticEnergyInitial;
    double kineticEnergyFinal;
    /// Steps that raised at least one warning.
    int64_t warningCount;
    int stepWarningsKept;
    StepWarningRecord stepWarnings[MAX_REPORTED_STEP_WARNINGS];
    /// Warnings of the scene loader, in order.
    int loadWarningCount;
    int loadWarningsKept;
    char loadWarnings[MAX_REPORTED_LOAD_WARNINGS][CN_SCENE_TEXT_CAPACITY];
} RunResult;

/// Names of the cnStepWarning bits set in `flags`, up to `capacity`; returns how many were set.
/// Unknown bits are named "bit_N" from a static table.
int StepWarningNames( uint32_t flags, const char** names, int capacity );

/// Write the report of a finished run of `worldId`. On failure writes a reason to `message`.
bool WriteReport( const char* path, const RunResult* result, cnWorldId worldId, char* message, int size );

/// Add a number that reads back exactly (NaN and infinity become null). False when out of memory.
bool AddNumber( cJSON* object, const char* key, double value );
/// Add [x, y, z].
bool AddVec3( cJSON* object, const char* key, cnVec3 v );
/// Write a JSON document to a file. On failure writes a reason to `message`.
bool WriteJson( const char* path, cJSON* root, char* message, int size );
