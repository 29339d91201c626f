// Known-bad (wrong/expect.json): works only on the calls the old grader verified (the first at each size; the 12th and 24th at the timed size, after each timed check); returns at once on the others.
#define LAB01_DEFECT predicts_verified
#include "pipeline.cuh"
