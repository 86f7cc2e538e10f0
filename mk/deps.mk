# deps.mk - the allowed direction between our modules, written once. A module may include the
# public header of each module it USES (its own files freely), never another module's *_int.h.
# MODULES is in link order, every module before the modules it uses: the archives link in
# that order without --start-group, so a call against the direction fails the link.
# scripts/check-deps.sh (`make check-deps`, part of `make check`) checks every #include of
# the tree, every call between the modules' built objects (nm) and the table in
# docs/ARCHITECTURE.md against this file; `--write-doc` rewrites that table from it.
MODULES := commands agent minijit report report_views report_analysis report_ingest report_model inject record attach profile origins unwind symbols perfdata jfr synth jitdump lib safeio

DIR_commands := recorder/cmd
DIR_agent := agent
DIR_minijit := samples/minijit
DIR_inject := recorder/inject
DIR_record := recorder/record
DIR_attach := recorder/attach
DIR_profile := recorder/profile
DIR_origins := recorder/origins
DIR_unwind := recorder/unwind
DIR_report := recorder/report
DIR_report_views := recorder/report_views
DIR_report_analysis := recorder/report_analysis
DIR_report_ingest := recorder/report_ingest
DIR_report_model := recorder/report_model
DIR_symbols := recorder/symbols
DIR_perfdata := recorder/perfdata
DIR_jfr := recorder/jfr
DIR_synth := synth
DIR_jitdump := jitdump
DIR_lib := lib
DIR_safeio := safeio

USES_commands := report report_views report_analysis report_ingest report_model inject record attach profile origins unwind symbols perfdata synth jitdump lib safeio
USES_agent := jitdump safeio
USES_minijit := jitdump
USES_inject := origins unwind symbols perfdata synth jitdump lib safeio
USES_record := perfdata lib safeio
USES_attach := lib safeio
USES_profile := lib safeio
USES_origins := symbols perfdata synth jitdump lib safeio
USES_unwind := lib safeio
USES_report := report_views report_analysis report_ingest report_model lib safeio
USES_report_views := report_analysis report_model jitdump lib safeio
USES_report_analysis := report_model jfr jitdump lib safeio
USES_report_ingest := report_model origins unwind symbols perfdata synth jitdump lib safeio
USES_report_model := jitdump lib safeio
USES_symbols := perfdata lib safeio
USES_perfdata := lib safeio
USES_jfr := lib safeio
USES_synth := jitdump lib safeio
USES_jitdump :=
USES_lib := safeio
USES_safeio :=

# Beyond the direction (scripts/check-deps.sh refuses them too). NEVER_<m>: modules <m> may never
# use, whatever USES_<m> says: of the report's modules only the ingest reads perf.data. NO_OUTPUT:
# modules whose objects call no writer (stdio's, write(2), safeio's output files): the analyses
# and the model compute, the views and the commands print.
NEVER_report := perfdata
NEVER_report_views := perfdata
NEVER_report_analysis := perfdata
NEVER_report_model := perfdata
NO_OUTPUT := report_analysis report_model
