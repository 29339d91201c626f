// Known-bad (wrong/expect.json): (b) lets the next step launch early and loads its weights early, but never waits for
// the previous step: it reads x while the previous kernel may still be writing it (the grader's poison, or the old
// values). Its machine code holds no griddepcontrol.wait (code.pdl), and the chain's bits differ wherever a step read
// too early (correct.pdl.*, at the chapter's chain at least).
#define LAB11_PDL_WAIT 0
#include "../chain.cu"
