// Known-bad (wrong/expect.json): (c) launches four times as many blocks as can be resident and gives block b the tasks
// b, b + grid, b + 2·grid, … of the chain. A resident block that finishes its first task moves to a later step and waits
// for that step's predecessors — tasks of blocks that are not resident and cannot start until a resident block exits.
// None does: the kernel never ends. The grader's deadline stops the check it hangs in (the checks after it are not
// run); where it finishes, the launches check sees a grid larger than what stays resident.
#define LAB11_TASKS_IN_ORDER 0
#include "../chain.cu"
