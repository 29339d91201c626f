// Allowed: an honest file that includes <atomic>, <thread> and <condition_variable> (libstdc++ pulls in
// sys/syscall.h for them) and starts a thread: the policy judges what the object calls, not which headers it saw.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

int policy_sample_threads() {
    std::atomic<int> n{0};
    std::mutex m;
    std::condition_variable cv;
    std::thread t([&] {
        std::lock_guard<std::mutex> lock(m);
        n.store(1);
        cv.notify_one();
    });
    t.join();
    return n.load();
}
