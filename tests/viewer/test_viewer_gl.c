// SPDX-License-Identifier: MIT
// cairn-viewer end to end, under Xvfb (ctest starts this test inside xvfb-run): headless
// screenshots of five scenes checked by their pixels, a scripted solver switch and the --set and
// --param options read back from the HUD log, and bad input and options. Each case runs the real binary
// (CN_VIEWER_PATH) with system().
//
// How a screenshot is checked against the scene: the viewer writes, next to the picture, a report
// with its camera matrices and every body's final position and bounding radius. The same frame
// is drawn twice more without HUD and shadows, once with the bodies and once without; the pixels
// that differ are the bodies. They must lie inside the bodies' projected bounding discs, every
// body on screen must cover some of them, and together they must fill a fair part of the discs.
#include "test_support.h"

#include <cjson/cJSON.h>
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <math.h>
#include <stb_image.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define CNT_WIDTH  960
#define CNT_HEIGHT 540

typedef struct cntImage
{
    unsigned char* pixels; // RGB rows, top first
    int width;
    int height;
} cntImage;

typedef struct cntBody
{
    double position[3];
    double radius;
    bool dynamic;
    bool plane;
} cntBody;

typedef struct cntReport
{
    float view[16];
    float projection[16];
    cntBody* bodies;
    int bodyCount;
    int steps;
    double frameMs;
    double stepMs;
} cntReport;

// snprintf that fails the test instead of cutting a path short
static void cntFormat( char* buffer, size_t size, const char* format, ... )
#if defined( __GNUC__ )
    __attribute__( ( format( printf, 3, 4 ) ) )
#endif
    ;
static void cntFormat( char* buffer, size_t size, const char* format, ... )
{
    va_list args;
    va_start( args, format );
    int length = vsnprintf( buffer, size, format, args );
    va_end( args );
    ck_assert_msg( length >= 0 && (size_t)length < size, "a path or command does not fit in %zu bytes",
                   size );
}

// run the viewer with `arguments`; stderr goes to `errorPath` (nullable); the exit status
static int cntRunViewer( const char* arguments, const char* errorPath )
{
    char command[4096];
    cntFormat( command, sizeof( command ), "'%s' %s > /dev/null 2> '%s'", CN_VIEWER_PATH, arguments,
               errorPath != NULL ? errorPath : "/dev/null" );
    int status = system( command );
    return WIFEXITED( status ) ? WEXITSTATUS( status ) : -1;
}

// A --hud-log file: the header's names and every row's fields (CSV, quoted text fields).
typedef struct cntCsv
{
    char* text;       // the file, cut into zero-terminated fields in place
    char*** rows;     // rows[0] is the header
    int* fieldCounts; // per row
    int rowCount;
} cntCsv;

static cntCsv cntReadCsv( const char* path )
{
    cntCsv csv = { 0 };
    csv.text = cntReadText( path, NULL );
    ck_assert_msg( csv.text != NULL, "no HUD log %s", path );
    int capacity = 0;
    char* p = csv.text;
    while ( *p != '\0' )
    {
        if ( csv.rowCount == capacity )
        {
            capacity = capacity > 0 ? 2 * capacity : 64;
            csv.rows = realloc( csv.rows, (size_t)capacity * sizeof( char** ) );
            csv.fieldCounts = realloc( csv.fieldCounts, (size_t)capacity * sizeof( int ) );
            ck_assert( csv.rows != NULL && csv.fieldCounts != NULL );
        }
        char** fields = NULL;
        int count = 0;
        for ( bool more = true; more; )
        {
            fields = realloc( fields, (size_t)( count + 1 ) * sizeof( char* ) );
            ck_assert_ptr_nonnull( fields );
            char* out = p;
            fields[count++] = out;
            if ( *p == '"' )
            {
                // quoted: "" is a quote
                ++p;
                while ( *p != '\0' )
                {
                    if ( p[0] == '"' && p[1] == '"' )
                    {
                        *out++ = '"';
                        p += 2;
                    }
                    else if ( p[0] == '"' )
                    {
                        ++p;
                        break;
                    }
                    else
                    {
                        *out++ = *p++;
                    }
                }
            }
            else
            {
                while ( *p != '\0' && *p != ',' && *p != '\n' )
                {
                    *out++ = *p++;
                }
            }
            // the delimiter is read before the field's end is written over it
            more = *p == ',';
            p += *p != '\0' ? 1 : 0;
            *out = '\0';
        }
        csv.rows[csv.rowCount] = fields;
        csv.fieldCounts[csv.rowCount] = count;
        csv.rowCount += 1;
    }
    ck_assert_msg( csv.rowCount > 0, "%s is empty", path );
    return csv;
}

static void cntFreeCsv( cntCsv* csv )
{
    for ( int i = 0; i < csv->rowCount; ++i )
    {
        free( csv->rows[i] );
    }
    free( csv->rows );
    free( csv->fieldCounts );
    free( csv->text );
    *csv = ( cntCsv ){ 0 };
}

// The column of a header name; fails the test when there is none.
static int cntColumn( const cntCsv* csv, const char* name )
{
    for ( int i = 0; i < csv->fieldCounts[0]; ++i )
    {
        if ( strcmp( csv->rows[0][i], name ) == 0 )
        {
            return i;
        }
    }
    ck_abort_msg( "the HUD log has no column %s", name );
    return -1;
}

static const char* cntField( const cntCsv* csv, int row, const char* name )
{
    int column = cntColumn( csv, name );
    ck_assert_msg( column < csv->fieldCounts[row], "row %d has %d fields, not %s", row, csv->fieldCounts[row],
                   name );
    return csv->rows[row][column];
}

static double cntNumber( const cntCsv* csv, int row, const char* name )
{
    const char* text = cntField( csv, row, name );
    char* end = NULL;
    double value = strtod( text, &end );
    ck_assert_msg( end != text && *end == '\0', "row %d: %s = '%s' is not a number", row, name, text );
    return value;
}

// The residual history of a step holds every solve of the step in order (per substep the main
// pass, then the relax pass when the substep had a soft pass), each as its start and one merit
// per iteration: its length follows from the report's iteration and pass counts.
static bool cntHistoryMatches( const cntCsv* csv, int row )
{
    int used = (int)cntNumber( csv, row, "iterations" );
    int relax = (int)cntNumber( csv, row, "relax_iterations" );
    int passes = (int)cntNumber( csv, row, "solver_passes" );
    int history = (int)cntNumber( csv, row, "history_count" );
    return history == used + relax + passes;
}

// With tolerance 0 every pass spends its budget: each substep's main pass the solver's
// iterations, each relax pass the world's relax budget (at most the solver's); a substep has a
// relax pass when something pressed into a soft contact. The counts of a row agree with that.
static bool cntBudgetsSpent( const cntCsv* csv, int row, int limit )
{
    int used = (int)cntNumber( csv, row, "iterations" );
    int relax = (int)cntNumber( csv, row, "relax_iterations" );
    int passes = (int)cntNumber( csv, row, "solver_passes" );
    int substeps = (int)cntNumber( csv, row, "substeps" );
    int relaxLimit = (int)cntNumber( csv, row, "relax_limit" );
    int relaxBudget = relaxLimit < limit ? relaxLimit : limit;
    return substeps >= 1 && used == substeps * limit && relax % relaxBudget == 0 &&
           relax <= substeps * relaxBudget && passes == substeps + relax / relaxBudget;
}

// the viewer ran without a sanitizer error; leaks only inside the GL driver (Mesa loads and
// unloads its driver at run time, so its leaks have no symbols): none in our sources
static void cntCheckSanitizerLog( const char* errorPath )
{
    char* text = cntReadText( errorPath, NULL );
    ck_assert_ptr_nonnull( text );
    bool asanError =
        strstr( text, "ERROR: AddressSanitizer" ) != NULL || strstr( text, "runtime error:" ) != NULL;
    bool ourLeak = false;
    for ( const char* leak = strstr( text, "leak of" ); leak != NULL; leak = strstr( leak + 1, "leak of" ) )
    {
        const char* end = strstr( leak + 1, "leak of" );
        const char* ours = strstr( leak, CN_SOURCE_DIR );
        ourLeak = ourLeak || ( ours != NULL && ( end == NULL || ours < end ) );
    }
    ck_assert_msg( !asanError && !ourLeak, "sanitizer report from the viewer:\n%.4000s", text );
    free( text );
}

static cntImage cntLoadImage( const char* path )
{
    cntImage image = { 0 };
    int channels = 0;
    image.pixels = stbi_load( path, &image.width, &image.height, &channels, 3 );
    ck_assert_msg( image.pixels != NULL, "cannot read %s", path );
    return image;
}

static void cntFreeImage( cntImage* image )
{
    stbi_image_free( image->pixels );
    *image = ( cntImage ){ 0 };
}

static cntReport cntLoadReport( const char* path )
{
    cntReport report = { 0 };
    char* text = cntReadText( path, NULL );
    ck_assert_msg( text != NULL, "no report %s", path );
    cJSON* root = cJSON_Parse( text );
    free( text );
    ck_assert_ptr_nonnull( root );
    cJSON* view = cJSON_GetObjectItem( root, "view" );
    cJSON* projection = cJSON_GetObjectItem( root, "projection" );
    ck_assert( cJSON_GetArraySize( view ) == 16 && cJSON_GetArraySize( projection ) == 16 );
    for ( int i = 0; i < 16; ++i )
    {
        report.view[i] = (float)cJSON_GetArrayItem( view, i )->valuedouble;
        report.projection[i] = (float)cJSON_GetArrayItem( projection, i )->valuedouble;
    }
    report.steps = cJSON_GetObjectItem( root, "steps" )->valueint;
    report.frameMs = cJSON_GetObjectItem( root, "frame_ms_mean" )->valuedouble;
    report.stepMs = cJSON_GetObjectItem( root, "step_cpu_ms_mean" )->valuedouble;
    cJSON* bodies = cJSON_GetObjectItem( root, "final_state" );
    report.bodyCount = cJSON_GetArraySize( bodies );
    report.bodies = calloc( (size_t)report.bodyCount + 1, sizeof( cntBody ) );
    for ( int i = 0; i < report.bodyCount; ++i )
    {
        cJSON* body = cJSON_GetArrayItem( bodies, i );
        cJSON* position = cJSON_GetObjectItem( body, "position" );
        for ( int k = 0; k < 3; ++k )
        {
            report.bodies[i].position[k] = cJSON_GetArrayItem( position, k )->valuedouble;
        }
        report.bodies[i].radius = cJSON_GetObjectItem( body, "bound_radius" )->valuedouble;
        report.bodies[i].dynamic = strcmp( cJSON_GetObjectItem( body, "type" )->valuestring, "dynamic" ) == 0;
        report.bodies[i].plane = cJSON_IsTrue( cJSON_GetObjectItem( body, "plane" ) );
    }
    cJSON_Delete( root );
    return report;
}

// column-major 4x4 times (x, y, z, 1)
static void cntTransform( const float m[16], const double p[3], double out[4] )
{
    for ( int r = 0; r < 4; ++r )
    {
        out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    }
}

// a body's bounding disc on screen, in pixels (top-left origin); false when behind the camera
static bool cntProject( const cntReport* report, const cntBody* body, int width, int height, double* x,
                        double* y, double* radius )
{
    double eye[4], clip[4];
    cntTransform( report->view, body->position, eye );
    if ( eye[2] > -1e-3 )
    {
        return false;
    }
    double eyePoint[3] = { eye[0], eye[1], eye[2] };
    cntTransform( report->projection, eyePoint, clip );
    *x = ( clip[0] / clip[3] * 0.5 + 0.5 ) * width;
    *y = ( 0.5 - clip[1] / clip[3] * 0.5 ) * height;
    // a sphere of radius r at eye depth -z covers at most r / (-z - r) in tangent units (wider than the
    // centre-distance estimate near the edge of the view; add a margin of a few pixels)
    double depth = -eye[2];
    double focal = report->projection[5] * 0.5 * height;
    double spread =
        depth > body->radius ? body->radius / sqrt( depth * depth - body->radius * body->radius ) : 10.0;
    double offCenter = hypot( *x - 0.5 * width, *y - 0.5 * height ) / focal;
    *radius = focal * spread * ( 1.0 + offCenter * offCenter ) + 3.0;
    return true;
}

typedef struct cntShotStats
{
    int distinctColors;
    double luminanceDeviation;
    long bodyPixels;    // differ between the pictures with and without bodies
    long outsideDiscs;  // of those, outside every bounding disc
    long discPixels;    // pixels inside some disc, on screen
    int bodiesOnScreen; // dynamic bodies whose disc centre is on screen
    int bodiesUnseen;   // of those, with no body pixel inside their disc
    long shadowPixels;  // darker with shadows than without, outside the discs
} cntShotStats;

static bool cntDiffers( const unsigned char* a, const unsigned char* b )
{
    int d = abs( a[0] - b[0] ) + abs( a[1] - b[1] ) + abs( a[2] - b[2] );
    return d > 24;
}

static cntShotStats cntMeasureShots( const cntImage* full, const cntImage* plain, const cntImage* empty,
                                     const cntImage* shadow, const cntReport* report )
{
    cntShotStats stats = { 0 };
    int w = plain->width, h = plain->height;
    long n = (long)w * h;

    // not blank: colours (5 bits a channel) and the spread of luminance of the full picture
    static unsigned char seen[32 * 32 * 32];
    memset( seen, 0, sizeof( seen ) );
    double sum = 0.0, sumSquares = 0.0;
    for ( long i = 0; i < (long)full->width * full->height; ++i )
    {
        const unsigned char* p = full->pixels + 3 * i;
        int key = ( p[0] >> 3 ) << 10 | ( p[1] >> 3 ) << 5 | ( p[2] >> 3 );
        stats.distinctColors += seen[key] == 0;
        seen[key] = 1;
        double luminance = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
        sum += luminance;
        sumSquares += luminance * luminance;
    }
    double count = (double)full->width * full->height;
    stats.luminanceDeviation = sqrt( fmax( 0.0, sumSquares / count - ( sum / count ) * ( sum / count ) ) );

    // the bounding discs
    unsigned char* inDisc = calloc( (size_t)n, 1 );
    double* discs = calloc( 3 * (size_t)report->bodyCount + 1, sizeof( double ) );
    ck_assert( inDisc != NULL && discs != NULL );
    for ( int b = 0; b < report->bodyCount; ++b )
    {
        const cntBody* body = report->bodies + b;
        double x, y, r;
        discs[3 * b + 2] = -1.0;
        // static bodies other than planes (walls, a fixed ring) are drawn too, and hidden with the rest
        if ( body->plane || !cntProject( report, body, w, h, &x, &y, &r ) )
        {
            continue;
        }
        if ( body->dynamic )
        {
            discs[3 * b] = x;
            discs[3 * b + 1] = y;
            discs[3 * b + 2] = r;
            stats.bodiesOnScreen += x >= 0 && x < w && y >= 0 && y < h;
        }
        for ( int py = (int)fmax( 0, y - r ); py < (int)fmin( h, y + r + 1 ); ++py )
        {
            for ( int px = (int)fmax( 0, x - r ); px < (int)fmin( w, x + r + 1 ); ++px )
            {
                if ( ( px - x ) * ( px - x ) + ( py - y ) * ( py - y ) <= r * r )
                {
                    inDisc[(long)py * w + px] = 1;
                }
            }
        }
    }
    for ( long i = 0; i < n; ++i )
    {
        stats.discPixels += inDisc[i];
        bool body = cntDiffers( plain->pixels + 3 * i, empty->pixels + 3 * i );
        stats.bodyPixels += body;
        stats.outsideDiscs += body && !inDisc[i];
        const unsigned char* s = shadow->pixels + 3 * i;
        const unsigned char* p = plain->pixels + 3 * i;
        bool darker = s[0] + s[1] + s[2] + 30 < p[0] + p[1] + p[2];
        stats.shadowPixels += darker && !body; // on the ground (or sky), not on a body
    }
    // every body on screen shows somewhere in its disc
    for ( int b = 0; b < report->bodyCount; ++b )
    {
        double x = discs[3 * b], y = discs[3 * b + 1], r = discs[3 * b + 2];
        if ( r < 0.0 || !( x >= 0 && x < w && y >= 0 && y < h ) )
        {
            continue;
        }
        bool seenBody = false;
        for ( int py = (int)fmax( 0, y - r ); py < (int)fmin( h, y + r + 1 ) && !seenBody; ++py )
        {
            for ( int px = (int)fmax( 0, x - r ); px < (int)fmin( w, x + r + 1 ) && !seenBody; ++px )
            {
                long i = (long)py * w + px;
                seenBody = ( px - x ) * ( px - x ) + ( py - y ) * ( py - y ) <= r * r &&
                           cntDiffers( plain->pixels + 3 * i, empty->pixels + 3 * i );
            }
        }
        stats.bodiesUnseen += !seenBody;
    }
    free( inDisc );
    free( discs );
    return stats;
}

static const char* const s_scenes[] = { "tower10", "ellipsoid_pile500", "capsule_pile500", "rings_hanging",
                                        "shapes" };
// whether the ground under the bodies is in view (the rings hang high: their shadows fall below the picture)
static const bool s_groundShadow[] = { true, true, true, false, true };
#define CNT_SCENE_COUNT 5

START_TEST( screenshot_shows_the_scene )
{
    const char* scene = s_scenes[_i];
    char base[512], arguments[2048], path[4][600], report[2][600], errors[600];
    cntFormat( base, sizeof( base ), "%s/viewer_%s", CN_TEST_OUTPUT_DIR, scene );
    const char* names[4] = { "full", "plain", "empty", "shadow" };
    const char* flags[4] = { "", "--no-hud --no-shadows", "--no-hud --no-shadows --hide-bodies", "--no-hud" };
    cntFormat( errors, sizeof( errors ), "%s_stderr.txt", base );
    for ( int k = 0; k < 4; ++k )
    {
        cntFormat( path[k], sizeof( path[k] ), "%s_%s.png", base, names[k] );
        if ( k < 2 )
        {
            cntFormat( report[k], sizeof( report[k] ), "%s_%s.json", base, names[k] );
        }
        cntFormat( arguments, sizeof( arguments ),
                   "'%s/scenes/%s.json' --headless --frames 20 --size %dx%d --screenshot '%s' %s%s%s",
                   CN_ASSETS_DIR, scene, CNT_WIDTH, CNT_HEIGHT, path[k], flags[k], k < 2 ? " --report " : "",
                   k < 2 ? report[k] : "" );
        int status = cntRunViewer( arguments, errors );
        ck_assert_msg( status == 0, "%s: cairn-viewer %s exited with %d (stderr in %s)", scene, arguments,
                       status, errors );
        cntCheckSanitizerLog( errors );
    }

    cntImage full = cntLoadImage( path[0] ), plain = cntLoadImage( path[1] ), empty = cntLoadImage( path[2] ),
             shadow = cntLoadImage( path[3] );
    ck_assert( full.width == CNT_WIDTH && full.height == CNT_HEIGHT );
    ck_assert( plain.width == empty.width && plain.height == empty.height && shadow.width == plain.width );
    cntReport fullReport = cntLoadReport( report[0] );
    cntReport plainReport = cntLoadReport( report[1] );
    // the same frame: the same steps, camera and body positions
    ck_assert_int_eq( fullReport.steps, 20 );
    ck_assert_int_eq( plainReport.steps, 20 );
    ck_assert( memcmp( fullReport.view, plainReport.view, sizeof( fullReport.view ) ) == 0 );
    ck_assert_int_eq( fullReport.bodyCount, plainReport.bodyCount );
    for ( int b = 0; b < plainReport.bodyCount; ++b )
    {
        ck_assert( memcmp( fullReport.bodies[b].position, plainReport.bodies[b].position,
                           sizeof( double ) * 3 ) == 0 );
    }

    cntShotStats stats = cntMeasureShots( &full, &plain, &empty, &shadow, &plainReport );
    printf( "%s: %d colours, luminance deviation %.1f, body pixels %ld (%.2f%% outside the discs, %.0f%% of "
            "the disc "
            "area), %d bodies on screen, %d unseen, %ld shadow pixels\n",
            scene, stats.distinctColors, stats.luminanceDeviation, stats.bodyPixels,
            100.0 * (double)stats.outsideDiscs / (double)( stats.bodyPixels > 0 ? stats.bodyPixels : 1 ),
            100.0 * (double)stats.bodyPixels / (double)( stats.discPixels > 0 ? stats.discPixels : 1 ),
            stats.bodiesOnScreen, stats.bodiesUnseen, stats.shadowPixels );
    fflush( stdout );
    ck_assert_int_ge( stats.distinctColors, 300 );
    ck_assert( stats.luminanceDeviation >= 8.0 );
    ck_assert_int_ge( stats.bodiesOnScreen, 1 );
    ck_assert_int_eq( stats.bodiesUnseen, 0 );
    ck_assert( stats.bodyPixels >= 500 );
    ck_assert( (double)stats.outsideDiscs <= 0.01 * (double)stats.bodyPixels );
    ck_assert( (double)stats.bodyPixels >= 0.15 * (double)stats.discPixels );
    // shadows darken the ground
    ck_assert( s_groundShadow[_i] == false || stats.shadowPixels >= 200 );

    // the HUD is drawn: the top-left panel differs from the picture without it
    long hudDiffers = 0;
    for ( int y = 10; y < 60; ++y )
    {
        for ( int x = 10; x < 300; ++x )
        {
            long i = (long)y * CNT_WIDTH + x;
            hudDiffers += cntDiffers( full.pixels + 3 * i, shadow.pixels + 3 * i );
        }
    }
    ck_assert_int_ge( hudDiffers, 50 * 290 / 10 );

    free( fullReport.bodies );
    free( plainReport.bodies );
    cntFreeImage( &full );
    cntFreeImage( &plain );
    cntFreeImage( &empty );
    cntFreeImage( &shadow );
}
END_TEST

// A script switches the solver twice and changes its parameters; the HUD log (the values the HUD
// prints, one row per frame) follows: the solver, its budget spent by every pass, and a residual
// history as long as the passes the report counts. 300 frames, so that the ASan build runs the
// viewer that long.
START_TEST( script_switches_solvers_and_the_hud_follows )
{
    char script[600], log[600], errors[600], shot[2][600], arguments[2048];
    cntFormat( script, sizeof( script ), "%s/viewer_switch.script", CN_TEST_OUTPUT_DIR );
    cntFormat( log, sizeof( log ), "%s/viewer_switch.csv", CN_TEST_OUTPUT_DIR );
    cntFormat( errors, sizeof( errors ), "%s/viewer_switch_stderr.txt", CN_TEST_OUTPUT_DIR );
    cntFormat( shot[0], sizeof( shot[0] ), "%s/viewer_switch_pgs.png", CN_TEST_OUTPUT_DIR );
    cntFormat( shot[1], sizeof( shot[1] ), "%s/viewer_switch_psor.png", CN_TEST_OUTPUT_DIR );
    FILE* file = fopen( script, "w" );
    ck_assert_ptr_nonnull( file );
    fprintf( file,
             "# pgs with 5 sweeps, then psor with 40, then pgj with 20; no tolerance, so every sweep runs\n"
             "0 param iterations 5\n"
             "0 param tolerance 0\n"
             "0 show contacts on\n"
             "99 screenshot %s\n"
             "100 solver psor\n"
             "100 param iterations 40\n"
             "100 param tolerance 0\n"
             "199 screenshot %s\n"
             "200 solver pgj\n"
             "200 param iterations 20\n"
             "200 param tolerance 0\n"
             "250 color island\n"
             "260 drop capsule\n",
             shot[0], shot[1] );
    fclose( file );
    cntFormat( arguments, sizeof( arguments ),
               "'%s/scenes/tower10.json' --headless --frames 300 --size 640x480 --script '%s' --hud-log '%s'",
               CN_ASSETS_DIR, script, log );
    int status = cntRunViewer( arguments, errors );
    ck_assert_msg( status == 0, "cairn-viewer exited with %d (stderr in %s)", status, errors );
    cntCheckSanitizerLog( errors );

    cntCsv csv = cntReadCsv( log );
    int rows = csv.rowCount - 1, wrong = 0, relaxed = 0;
    double logResidual[3] = { 0, 0, 0 };
    int counted[3] = { 0, 0, 0 };
    int bodiesAtEnd = 0;
    static const char* const solvers[3] = { "pgs", "psor", "pgj" };
    static const int iterations[3] = { 5, 40, 20 };
    for ( int row = 1; row < csv.rowCount; ++row )
    {
        long long frame = (long long)cntNumber( &csv, row, "frame" );
        long long step = (long long)cntNumber( &csv, row, "step" );
        double limit = cntNumber( &csv, row, "iteration_limit" );
        int relax = (int)cntNumber( &csv, row, "relax_iterations" );
        double residual = cntNumber( &csv, row, "residual" );
        int contacts = (int)cntNumber( &csv, row, "contacts" );
        bodiesAtEnd = (int)cntNumber( &csv, row, "bodies" );
        int phase = frame < 100 ? 0 : ( frame < 200 ? 1 : 2 );
        // each frame shows the step it took: frame f is step f + 1
        wrong += step != frame + 1;
        wrong += strcmp( cntField( &csv, row, "solver" ), solvers[phase] ) != 0 || limit != iterations[phase];
        if ( contacts > 0 )
        {
            wrong += !cntBudgetsSpent( &csv, row, iterations[phase] ) || !cntHistoryMatches( &csv, row );
            relaxed += relax > 0;
            if ( frame > 20 && residual > 0.0 )
            {
                logResidual[phase] += log10( residual );
                counted[phase] += 1;
            }
        }
    }
    cntFreeCsv( &csv );
    // the stack presses into its soft contacts: most steps have a relax pass
    ck_assert_int_gt( relaxed, 100 );
    ck_assert_int_eq( rows, 300 );
    ck_assert_int_eq( wrong, 0 );
    // a dropped capsule joined the tower's 11 bodies
    ck_assert_int_eq( bodiesAtEnd, 12 );
    // 40 PSOR sweeps leave a smaller residual than 5 PGS sweeps
    ck_assert( counted[0] > 50 && counted[1] > 50 );
    double mean0 = logResidual[0] / counted[0], mean1 = logResidual[1] / counted[1];
    printf( "mean log10 residual: pgs x5 %.2f, psor x40 %.2f\n", mean0, mean1 );
    ck_assert( mean1 < mean0 - 0.5 );

    // the solver panel changed between the two screenshots
    cntImage a = cntLoadImage( shot[0] ), b = cntLoadImage( shot[1] );
    long differs = 0;
    for ( int y = 90; y < 140; ++y )
    {
        for ( int x = 10; x < 300; ++x )
        {
            long i = (long)y * a.width + x;
            differs += cntDiffers( a.pixels + 3 * i, b.pixels + 3 * i );
        }
    }
    ck_assert_int_ge( differs, 100 );
    cntFreeImage( &a );
    cntFreeImage( &b );
}
END_TEST

// --set goes to the scene loader (the scene's iteration budget), --param to the solver after the
// load (a choice by name); a script sets parameters by name too; the HUD log shows the parameters
// as the HUD does, and the grading merits of every step.
START_TEST( set_and_param_reach_the_world_and_the_hud_log )
{
    char script[600], log[600], errors[600], arguments[2048];
    cntFormat( script, sizeof( script ), "%s/viewer_options.script", CN_TEST_OUTPUT_DIR );
    cntFormat( log, sizeof( log ), "%s/viewer_options.csv", CN_TEST_OUTPUT_DIR );
    cntFormat( errors, sizeof( errors ), "%s/viewer_options_stderr.txt", CN_TEST_OUTPUT_DIR );
    FILE* file = fopen( script, "w" );
    ck_assert_ptr_nonnull( file );
    fprintf( file, "10 param kernel fast\n20 param warm_start false\n25 solver no_such_solver\n" );
    fclose( file );
    cntFormat( arguments, sizeof( arguments ),
               "'%s/scenes/tower10.json' --headless --frames 30 --size 320x240 --samples 0 --no-shadows "
               "--set world.solver.iterations=7 --param kernel=reference --param tolerance=0 "
               "--script '%s' --hud-log '%s'",
               CN_ASSETS_DIR, script, log );
    int status = cntRunViewer( arguments, errors );
    ck_assert_msg( status == 0, "cairn-viewer exited with %d (stderr in %s)", status, errors );
    cntCheckSanitizerLog( errors );

    cntCsv csv = cntReadCsv( log );
    ck_assert_int_eq( csv.rowCount, 31 );
    int wrong = 0, graded = 0, positive = 0;
    for ( int row = 1; row < csv.rowCount; ++row )
    {
        int frame = (int)cntNumber( &csv, row, "frame" );
        const char* params = cntField( &csv, row, "params" );
        // the parameters are written NAME=VALUE, space separated, choices and toggles by name
        bool reference = strstr( params, "kernel=reference" ) != NULL;
        bool fast = strstr( params, "kernel=fast" ) != NULL;
        bool warm = strstr( params, "warm_start=true" ) != NULL;
        bool cold = strstr( params, "warm_start=false" ) != NULL;
        wrong += cntNumber( &csv, row, "iteration_limit" ) != 7.0 ||
                 strstr( params, "iterations=7" ) == NULL || strstr( params, "tolerance=0 " ) == NULL;
        wrong += frame < 10 ? !( reference && !fast ) : !( fast && !reference );
        wrong += frame < 20 ? !( warm && !cold ) : !( cold && !warm );
        if ( cntNumber( &csv, row, "contacts" ) > 0 )
        {
            // the merits the layer grades every solve by: pgs solves the pyramid model, so its
            // residual is the natural-map merit; every merit is finite and not negative
            double natural = cntNumber( &csv, row, "merit_natural_map" );
            double residual = cntNumber( &csv, row, "residual" );
            static const char* const merits[4] = { "merit_cone", "violation_signorini", "violation_coulomb",
                                                   "violation_dissipation" };
            wrong += !( isfinite( natural ) && natural >= 0.0 ) || natural != residual;
            for ( int m = 0; m < 4; ++m )
            {
                double value = cntNumber( &csv, row, merits[m] );
                wrong += !( isfinite( value ) && value >= 0.0 );
            }
            wrong += !cntBudgetsSpent( &csv, row, 7 ) || !cntHistoryMatches( &csv, row );
            graded += 1;
            positive += natural > 0.0;
        }
    }
    // a refused swap says why on the message line (and pgs runs on)
    const char* message = cntField( &csv, 26, "message" );
    ck_assert_msg( cntNumber( &csv, 26, "frame" ) == 25.0 &&
                       strstr( message, "solver 'no_such_solver' refused: unknown solver" ) != NULL,
                   "message at frame 25: %s", message );
    ck_assert_str_eq( cntField( &csv, csv.rowCount - 1, "solver" ), "pgs" );
    cntFreeCsv( &csv );
    ck_assert_int_eq( wrong, 0 );
    // seven sweeps do not solve a tower exactly
    ck_assert_int_ge( graded, 29 );
    ck_assert_int_ge( positive, 29 );
}
END_TEST

// An unknown scene key in --set, an unknown --param, or a bad value in either: a message that
// names the key on stderr and exit code 2, before a frame is drawn.
START_TEST( bad_set_and_param_exit_2_naming_the_key )
{
    static const char* const cases[][2] = {
        { "--set world.solver.iteratoins=50", "world.solver.iteratoins: unknown key" },
        { "--set world.solver.iterations=lots", "world.solver.iterations: expected a positive integer" },
        { "--set iterations=50", "--set iterations=50: 'iterations' is a solver parameter" },
        { "--param iteratoins=50", "--param iteratoins=50: no solver has a parameter 'iteratoins'" },
        { "--param kernel=fastest",
          "--param kernel=fastest: kernel: 'fastest' is not one of fast, reference" },
        { "--solver lemke --param relaxation=1.2",
          "--param relaxation=1.2: solver 'lemke' has no parameter" },
    };
    char errors[600], arguments[2048];
    cntFormat( errors, sizeof( errors ), "%s/viewer_bad_option_stderr.txt", CN_TEST_OUTPUT_DIR );
    for ( size_t i = 0; i < sizeof( cases ) / sizeof( cases[0] ); ++i )
    {
        cntFormat( arguments, sizeof( arguments ),
                   "'%s/scenes/tower10.json' --headless --frames 2 --size 320x240 --samples 0 %s",
                   CN_ASSETS_DIR, cases[i][0] );
        int status = cntRunViewer( arguments, errors );
        char* text = cntReadText( errors, NULL );
        ck_assert_msg( status == 2 && text != NULL && strstr( text, cases[i][1] ) != NULL,
                       "%s: exit %d, stderr: %s", cases[i][0], status, text != NULL ? text : "(none)" );
        free( text );
        // and leaves nothing of ours behind on the way out
        cntCheckSanitizerLog( errors );
    }
}
END_TEST

// The mouse spring: grab the top box of the tower at its pixel, move the cursor 100 pixels up
// and hold. The box follows the cursor: at its depth d the 100 pixels are 100 * 2 d / (H P11) m
// along the screen's up direction, where P11 = 1 / tan(fov / 2). The spring holds the grabbed
// point, on the surface, at the cursor; the box hangs from it and may turn, so its centre ends
// within two bounding radii (grabbed point to centre, before and after) of the moved centre.
START_TEST( dragging_a_body_moves_it_with_the_cursor )
{
    char first[600], final[600], script[600], errors[600], arguments[2048];
    cntFormat( first, sizeof( first ), "%s/viewer_drag_start.json", CN_TEST_OUTPUT_DIR );
    cntFormat( final, sizeof( final ), "%s/viewer_drag_end.json", CN_TEST_OUTPUT_DIR );
    cntFormat( script, sizeof( script ), "%s/viewer_drag.script", CN_TEST_OUTPUT_DIR );
    cntFormat( errors, sizeof( errors ), "%s/viewer_drag_stderr.txt", CN_TEST_OUTPUT_DIR );
    cntFormat( arguments, sizeof( arguments ),
               "'%s/scenes/tower10.json' --headless --frames 1 --size 640x480 --report '%s'", CN_ASSETS_DIR,
               first );
    ck_assert_int_eq( cntRunViewer( arguments, errors ), 0 );
    cntReport start = cntLoadReport( first );
    int top = -1;
    for ( int b = 0; b < start.bodyCount; ++b )
    {
        if ( start.bodies[b].dynamic &&
             ( top < 0 || start.bodies[b].position[2] > start.bodies[top].position[2] ) )
        {
            top = b;
        }
    }
    ck_assert_int_ge( top, 0 );
    double x, y, r;
    ck_assert( cntProject( &start, start.bodies + top, 640, 480, &x, &y, &r ) );

    FILE* file = fopen( script, "w" );
    ck_assert_ptr_nonnull( file );
    fprintf( file, "1 grab %.1f %.1f\n2 move %.1f %.1f\n", x, y, x, y - 100.0 );
    fclose( file );
    cntFormat( arguments, sizeof( arguments ),
               "'%s/scenes/tower10.json' --headless --frames 150 --size 640x480 --script '%s' --report '%s'",
               CN_ASSETS_DIR, script, final );
    int status = cntRunViewer( arguments, errors );
    ck_assert_msg( status == 0, "cairn-viewer exited with %d (stderr in %s)", status, errors );
    cntCheckSanitizerLog( errors );
    cntReport end = cntLoadReport( final );

    double eye[4];
    cntTransform( start.view, start.bodies[top].position, eye );
    double rise = 100.0 * 2.0 * ( -eye[2] ) / ( 480.0 * start.projection[5] );
    const float* v = start.view;
    double up[3] = { v[1], v[5], v[9] }; // the screen's up direction in the world: the view's second row
    double distance = 0.0, moved = 0.0;
    for ( int k = 0; k < 3; ++k )
    {
        double expected = start.bodies[top].position[k] + rise * up[k];
        distance += ( end.bodies[top].position[k] - expected ) * ( end.bodies[top].position[k] - expected );
        moved += ( end.bodies[top].position[k] - start.bodies[top].position[k] ) * up[k];
    }
    distance = sqrt( distance );
    printf(
        "drag: cursor moved %.2f m at the box, the box moved %.2f m that way, ends %.2f m from the target\n",
        rise, moved, distance );
    fflush( stdout );
    ck_assert( rise > 0.5 );
    ck_assert( moved > 0.5 * rise );
    ck_assert( distance < 2.0 * start.bodies[top].radius + 0.1 );
    // the rest of the tower stays put
    for ( int b = 0; b < start.bodyCount; ++b )
    {
        if ( b != top && start.bodies[b].dynamic &&
             start.bodies[b].position[2] < start.bodies[top].position[2] - 1.5 )
        {
            ck_assert( fabs( end.bodies[b].position[2] - start.bodies[b].position[2] ) < 0.05 );
        }
    }
    free( start.bodies );
    free( end.bodies );
}
END_TEST

// Bad input: a malformed scene and a bad script are refused with the file, line and what, an
// unknown solver by its name
START_TEST( bad_input_is_named_and_refused )
{
    char scene[600], script[600], errors[600], arguments[2048];
    cntFormat( scene, sizeof( scene ), "%s/viewer_bad_scene.json", CN_TEST_OUTPUT_DIR );
    cntFormat( script, sizeof( script ), "%s/viewer_bad.script", CN_TEST_OUTPUT_DIR );
    cntFormat( errors, sizeof( errors ), "%s/viewer_bad_stderr.txt", CN_TEST_OUTPUT_DIR );
    FILE* file = fopen( scene, "w" );
    ck_assert_ptr_nonnull( file );
    fprintf( file, "{\n  \"version\": 1,\n  \"bodies\": [\n    { \"shapes\": [ { \"type\": \"sphere\", "
                   "\"radius\": -1 } ] }\n  ]\n}\n" );
    fclose( file );
    cntFormat( arguments, sizeof( arguments ), "'%s' --headless --frames 2", scene );
    ck_assert_int_ne( cntRunViewer( arguments, errors ), 0 );
    char* text = cntReadText( errors, NULL );
    ck_assert_msg( text != NULL && strstr( text, "viewer_bad_scene.json:4:" ) != NULL &&
                       strstr( text, "radius" ) != NULL,
                   "%s", text != NULL ? text : "(none)" );
    free( text );

    file = fopen( script, "w" );
    ck_assert_ptr_nonnull( file );
    fprintf( file, "0 pause\n5 color plaid\n" );
    fclose( file );
    cntFormat( arguments, sizeof( arguments ), "'%s/scenes/tower10.json' --headless --frames 2 --script '%s'",
               CN_ASSETS_DIR, script );
    ck_assert_int_ne( cntRunViewer( arguments, errors ), 0 );
    text = cntReadText( errors, NULL );
    ck_assert_msg( text != NULL && strstr( text, "viewer_bad.script:2:" ) != NULL, "%s",
                   text != NULL ? text : "" );
    free( text );

    cntFormat( arguments, sizeof( arguments ),
               "'%s/scenes/tower10.json' --headless --frames 3 --solver no_such_solver", CN_ASSETS_DIR );
    ck_assert_int_ne( cntRunViewer( arguments, errors ), 0 );
    text = cntReadText( errors, NULL );
    ck_assert_msg( text != NULL && strstr( text, "--solver no_such_solver: no such solver" ) != NULL, "%s",
                   text != NULL ? text : "" );
    free( text );
}
END_TEST

// the colour the viewer gave body `name` in a --report file
static void cntReportColor( const char* path, const char* name, double rgb[3] )
{
    char* text = cntReadText( path, NULL );
    ck_assert_msg( text != NULL, "no report %s", path );
    cJSON* root = cJSON_Parse( text );
    free( text );
    ck_assert_ptr_nonnull( root );
    bool found = false;
    const cJSON* body = NULL;
    cJSON_ArrayForEach( body, cJSON_GetObjectItem( root, "final_state" ) )
    {
        const cJSON* bodyName = cJSON_GetObjectItem( body, "name" );
        if ( cJSON_IsString( bodyName ) && strcmp( bodyName->valuestring, name ) == 0 )
        {
            const cJSON* color = cJSON_GetObjectItem( body, "color" );
            for ( int k = 0; k < 3; ++k )
            {
                rgb[k] = cJSON_GetArrayItem( color, k )->valuedouble;
            }
            found = true;
        }
    }
    cJSON_Delete( root );
    ck_assert_msg( found, "%s: no body named %s", path, name );
}

static double cntColorDistance( const double a[3], const double b[3] )
{
    return fabs( a[0] - b[0] ) + fabs( a[1] - b[1] ) + fabs( a[2] - b[2] );
}

// A colony's cells coloured by orientation (the default for a scene with a colony) and by age.
// Four cells far apart: a and b along x, c along y, d along x but 3.2 m long, so that it divides
// at t = ln(4 / 3.2) = 0.22 s and its daughters are younger than a at t = 0.3 s.
START_TEST( colony_cells_are_coloured_by_orientation_and_age )
{
    char scene[600], first[600], plain[600], aged[600], errors[600], arguments[2048];
    cntFormat( scene, sizeof( scene ), "%s/viewer_colony.json", CN_TEST_OUTPUT_DIR );
    cntFormat( first, sizeof( first ), "%s/viewer_colony_orientation.json", CN_TEST_OUTPUT_DIR );
    cntFormat( plain, sizeof( plain ), "%s/viewer_colony_default.json", CN_TEST_OUTPUT_DIR );
    cntFormat( aged, sizeof( aged ), "%s/viewer_colony_age.json", CN_TEST_OUTPUT_DIR );
    cntFormat( errors, sizeof( errors ), "%s/viewer_colony_stderr.txt", CN_TEST_OUTPUT_DIR );
    FILE* file = fopen( scene, "w" );
    ck_assert_ptr_nonnull( file );
    // [w, x, y, z] turning the capsule's z axis onto x, and onto y
    const char* alongX = "[0.7071067811865476, 0, 0.7071067811865476, 0]";
    const char* alongY = "[0.7071067811865476, -0.7071067811865476, 0, 0]";
    fprintf( file,
             "{\"world\": {\"gravity\": [0, 0, 0], \"dt\": 0.01, \"dynamics\": \"overdamped\"},\n"
             " \"bodies\": [\n"
             "  {\"name\": \"a\", \"position\": [0, 0, 0], \"orientation\": %s, \"shapes\": [{\"type\": "
             "\"capsule\", \"radius\": 0.25, \"half_length\": 0.75}]},\n"
             "  {\"name\": \"b\", \"position\": [10, 0, 0], \"orientation\": %s, \"shapes\": [{\"type\": "
             "\"capsule\", \"radius\": 0.25, \"half_length\": 0.75}]},\n"
             "  {\"name\": \"c\", \"position\": [0, 10, 0], \"orientation\": %s, \"shapes\": [{\"type\": "
             "\"capsule\", \"radius\": 0.25, \"half_length\": 0.75}]},\n"
             "  {\"name\": \"d\", \"position\": [10, 10, 0], \"orientation\": %s, \"shapes\": [{\"type\": "
             "\"capsule\", \"radius\": 0.25, \"half_length\": 1.35}]}],\n"
             " \"systems\": {\"colony\": {\"max_cells\": 100}}}\n",
             alongX, alongX, alongY, alongX );
    fclose( file );

    cntFormat( arguments, sizeof( arguments ),
               "'%s' --headless --frames 1 --size 320x240 --color orientation --report '%s'", scene, first );
    ck_assert_int_eq( cntRunViewer( arguments, errors ), 0 );
    cntCheckSanitizerLog( errors );
    cntFormat( arguments, sizeof( arguments ), "'%s' --headless --frames 1 --size 320x240 --report '%s'",
               scene, plain );
    ck_assert_int_eq( cntRunViewer( arguments, errors ), 0 );
    double a[3], b[3], c[3], d[3], defaultA[3], defaultC[3];
    cntReportColor( first, "a", a );
    cntReportColor( first, "b", b );
    cntReportColor( first, "c", c );
    cntReportColor( plain, "a", defaultA );
    cntReportColor( plain, "c", defaultC );
    // same direction, same colour; a quarter turn apart, another; the default for a colony
    ck_assert_msg( cntColorDistance( a, b ) < 1e-6, "a and b point the same way but differ" );
    ck_assert_msg( cntColorDistance( a, c ) > 0.3, "a and c point 90 degrees apart but look alike" );
    ck_assert( cntColorDistance( a, defaultA ) < 1e-6 && cntColorDistance( c, defaultC ) < 1e-6 );

    cntFormat( arguments, sizeof( arguments ),
               "'%s' --headless --frames 30 --size 320x240 --color age --report '%s'", scene, aged );
    ck_assert_int_eq( cntRunViewer( arguments, errors ), 0 );
    cntCheckSanitizerLog( errors );
    cntReportColor( aged, "a", a );
    cntReportColor( aged, "d", d );
    // a is 0.3 s old, d's daughter 0.08 s: younger is paler (more red), older bluer
    printf( "colony colours by age: a (0.30 s) %.3f %.3f %.3f, d (0.08 s) %.3f %.3f %.3f\n", a[0], a[1], a[2],
            d[0], d[1], d[2] );
    fflush( stdout );
    ck_assert( d[0] > a[0] + 0.1 && d[2] < a[2] - 0.02 );
}
END_TEST

static Suite* cntViewerSuite( void )
{
    Suite* suite = suite_create( "viewer" );
    TCase* tc = tcase_create( "xvfb" );
    tcase_add_loop_test( tc, screenshot_shows_the_scene, 0, CNT_SCENE_COUNT );
    tcase_add_test( tc, script_switches_solvers_and_the_hud_follows );
    tcase_add_test( tc, set_and_param_reach_the_world_and_the_hud_log );
    tcase_add_test( tc, bad_set_and_param_exit_2_naming_the_key );
    tcase_add_test( tc, dragging_a_body_moves_it_with_the_cursor );
    tcase_add_test( tc, bad_input_is_named_and_refused );
    tcase_add_test( tc, colony_cells_are_coloured_by_orientation_and_age );
    suite_add_tcase( suite, tc );
    return suite;
}

int main( void )
{
    if ( getenv( "DISPLAY" ) == NULL )
    {
        fprintf( stderr, "test_viewer_gl needs a display: ctest runs it under xvfb-run\n" );
        return 1;
    }
    static cntSuiteFcn* const suites[] = { cntViewerSuite };
    return cntRunSuites( suites, 1 );
}
