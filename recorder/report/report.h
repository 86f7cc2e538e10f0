/* report.h - the face of `jitprof report`'s modules together, what the commands include: the
 * model (model.h), the ingest from perf.data (ingest.h), the analyses (analysis.h) and the
 * views and exports (views.h). docs/report.md. */
#ifndef JITPROF_REPORT_H
#define JITPROF_REPORT_H

#include "recorder/report/ingest.h"
#include "recorder/report/views.h"

#endif
