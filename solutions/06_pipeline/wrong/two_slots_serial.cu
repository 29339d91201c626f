// Known-bad (wrong/expect.json): two slots that wait for each copy right after issuing it — right bits, no
// overlap: the speed-up over one slot and the model both say so. Everything else is the solution.
#define LAB06_DEFECT two_slots_wait_all
#include "stage_defect.cuh"
