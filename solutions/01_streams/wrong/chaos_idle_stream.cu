// Known-bad (wrong/expect.json): the missing "compute done" wait, with every chaos.point()/done() on an idle stream of its own — which fooled the old grader, whose chaos went only where the pipeline announced it.
#define LAB01_DEFECT chaos_idle_stream
#include "pipeline.cuh"
