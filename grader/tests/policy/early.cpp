// Denied: a constructor that would run before the grader's, a file stream, and (x86-64) an inline system
// call.
#include <fstream>

volatile int policy_sample_flag = 0;
__attribute__((constructor(101))) static void policy_sample_early() { policy_sample_flag = 1; }

void policy_sample_stream() { std::ofstream("/proc/self/fd/3") << "forged\n"; }

long policy_sample_syscall() {
    long r = 0;
#if defined(__x86_64__)
    asm volatile("syscall" : "=a"(r) : "a"(39) : "rcx", "r11", "memory");
#endif
    return r;
}
