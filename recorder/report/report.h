/* report.h - the face of `jitprof report`'s modules together, what the commands include: the
 * model (model.h), the ingest from perf.data (ingest.h), the analyses (analysis.h) and the
 * views and exports (views.h). docs/report.md. */
#ifndef JITPROF_REPORT_H
#define JITPROF_REPORT_H

#include "recorder/report_ingest/ingest.h"
#include "recorder/report_views/views.h"

#endif
