// One-instruction probe kernels for kernel_code_test.cpp, compiled to an sm_90a cubin at build time (never linked,
// never run): each holds the instruction kind its name says, and the plain one none of them.
#include <cstdint>

namespace {
__device__ __forceinline__ unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
}  // namespace

extern "C" __global__ void probe_plain(float* x) { x[threadIdx.x] = 1.0f; }

extern "C" __global__ void probe_mma_sync(float* x, const unsigned* a) {
    float d[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]));
    x[threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}

extern "C" __global__ void probe_wgmma_shared(float* x, std::uint64_t da, std::uint64_t db) {
    float d[8] = {};
    asm volatile("wgmma.fence.sync.aligned;");
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1, 1, 1, 0, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;");
    asm volatile("wgmma.wait_group.sync.aligned 0;");
    float t = 0;
    for (float v : d) t += v;
    x[threadIdx.x] = t;
}

extern "C" __global__ void probe_wgmma_registers(float* x, std::uint64_t db, const unsigned* a) {
    float d[8] = {};
    asm volatile("wgmma.fence.sync.aligned;");
    asm volatile("wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1, 1, 1, 0;"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;");
    asm volatile("wgmma.wait_group.sync.aligned 0;");
    float t = 0;
    for (float v : d) t += v;
    x[threadIdx.x] = t;
}

extern "C" __global__ void probe_tma_load(float* x, const __grid_constant__ std::uint64_t map[16]) {
    __shared__ alignas(128) float s[1024];
    __shared__ alignas(8) std::uint64_t bar;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smem_address(&bar)));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(smem_address(s)), "l"(map), "r"(0), "r"(0), "r"(smem_address(&bar)) : "memory");
    }
    __syncthreads();
    x[threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void probe_bulk_copy(float* x, const float* g) {
    __shared__ alignas(128) float s[1024];
    __shared__ alignas(8) std::uint64_t bar;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(smem_address(&bar)));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];"
                     ::"r"(smem_address(s)), "l"(g), "r"(smem_address(&bar)) : "memory");
    }
    __syncthreads();
    x[threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void probe_cp_async(float* x, const float* g) {
    __shared__ alignas(16) float s[512];
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_address(s + 4 * (threadIdx.x % 128))), "l"(g + 4 * threadIdx.x));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    x[threadIdx.x] = s[threadIdx.x % 512];
}

extern "C" __global__ void probe_red_float(float* x, float v) { atomicAdd(x + threadIdx.x, v); }

extern "C" __global__ void probe_atom_float(float* x, float v, float* old) { old[threadIdx.x] = atomicAdd(x + threadIdx.x, v); }

extern "C" __global__ void probe_red_double(double* x, double v) { atomicAdd(x + threadIdx.x, v); }

// Integer atomics (a counter, a compare-and-swap) are not floating-point adds: counted in none of the kinds.
extern "C" __global__ void probe_atomic_int(int* x, int v, int* old) {
    atomicAdd(x + threadIdx.x, v);
    old[threadIdx.x] = atomicCAS(x + 1024 + threadIdx.x, v, 3) + atomicAdd(x + 2048 + threadIdx.x, v);
}

// A fence at GPU scope (__threadfence: MEMBAR.SC.GPU), the same with release and acquire semantics (a release add to a
// flag, an acquire load of it), and one at block scope (__threadfence_block: MEMBAR.CTA), which is not counted.
extern "C" __global__ void probe_fence_gpu(int* y) { y[0] = 1; __threadfence(); y[1] = 2; }
extern "C" __global__ void probe_release_add(unsigned* flag) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(flag) : "memory");
}
extern "C" __global__ void probe_fence_block(int* y) { y[0] = 1; __threadfence_block(); y[1] = 2; }

// Programmatic dependent launch: the wait for the previous grid (griddepcontrol.wait) and the early trigger for the
// next (griddepcontrol.launch_dependents), each alone.
extern "C" __global__ void probe_dependency_wait(const int* x, int* y) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    y[threadIdx.x] = x[threadIdx.x];
}
extern "C" __global__ void probe_launch_dependents(const int* x, int* y) {
    asm volatile("griddepcontrol.launch_dependents;");
    y[threadIdx.x] = x[threadIdx.x];
}
