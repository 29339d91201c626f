// Denied: a write() to a descriptor, hidden behind a token-pasting macro, and exit().
#include <unistd.h>

#include <cstdlib>

#define QUIETLY(fd, text) w##rite(fd, text, sizeof(text) - 1)

void policy_sample_writes() {
    (void)!QUIETLY(3, "forged\n");
    std::exit(0);
}
