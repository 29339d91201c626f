// Lab 09 solution. What each part does, and why:
// (b) Bucketed: a template instance per bucket, its row count a compile-time constant, so that a block owns all of
//     the bucket's rows (up to 64) and each W tile it loads serves them all; the padding rows are zeros in
//     registers, never loaded from X nor stored to Y.
// (c) The cache: programs by a hash of every part of their key, the most recently used in memory (a list in use
//     order and a map into it), all of them on disk as one file each. A file holds a magic word, the lengths, a
//     checksum of the program, the whole key (a hash can collide; the key cannot) and the program. It is written
//     to a temporary file in the same directory, flushed, and renamed over the final name: rename is atomic, so a
//     reader — this process or another — sees the old file or the new one, never half of one. On reading, every
//     field is checked; a file that fails is reported, never used, and replaced by a fresh build.
// (c) Specialised: the source written for one M, N, K (a skinny kernel that keeps all rows in registers for
//     M ≤ 16, tiles above), compiled by NVRTC to a cubin through the cache, loaded once per process with the
//     runtime's library API and launched with cudaLaunchKernel.
// (d) The policy: the strategy with the least P + r·T for the r calls still to come (lower index on a tie).
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <list>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <map>

#include <nvrtc.h>
#include <unistd.h>

#include "labs/cuda_check.hpp"
#include "labs/launch.hpp"

#include "shapes.hpp"

namespace {

constexpr char kMagic[8] = {'L', 'A', 'B', 'P', 'R', 'O', 'G', '1'};

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

// The key as bytes: each part with its length in front, so that ("ab", "c") and ("a", "bc") differ.
std::string serialise(const ProgramKey& k) {
    std::string out;
    for (const std::string& part : {k.source, k.options, k.arch, std::to_string(k.driver), std::to_string(k.nvrtc)}) {
        const std::uint64_t n = part.size();
        out.append(reinterpret_cast<const char*>(&n), sizeof n);
        out += part;
    }
    return out;
}

// 128 bits of hash, as 32 hex digits: the file's name.
std::string name_of(const std::string& key_bytes) {
    char hex[33];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", (unsigned long long)fnv1a(key_bytes.data(), key_bytes.size()),
                  (unsigned long long)fnv1a(key_bytes.data(), key_bytes.size(), 0x84222325cbf29ce4ull));
    return hex;
}

struct Header {
    char magic[8];
    std::uint64_t key_bytes;
    std::uint64_t image_bytes;
    std::uint64_t image_checksum;
};

}  // namespace

struct ProgramCache::Impl {
    std::filesystem::path dir;
    std::size_t capacity;
    std::mutex mutex;
    using Entry = std::pair<std::string, std::shared_ptr<const std::vector<char>>>;  // name, program
    std::list<Entry> lru;  // most recently used first
    std::unordered_map<std::string, std::list<Entry>::iterator> where;

    std::shared_ptr<const std::vector<char>> remember(const std::string& name, std::shared_ptr<const std::vector<char>> image) {
        if (auto it = where.find(name); it != where.end()) lru.erase(it->second);
        lru.emplace_front(name, std::move(image));
        where[name] = lru.begin();
        while (lru.size() > capacity) {
            where.erase(lru.back().first);
            lru.pop_back();
        }
        return lru.front().second;
    }

    // The file's program when every field checks out; "" in `why` then, else what is wrong (the file exists).
    std::shared_ptr<const std::vector<char>> read(const std::filesystem::path& path, const std::string& key_bytes,
                                                  std::string& why) {
        std::ifstream in(path, std::ios::binary);
        if (!in) return nullptr;  // not there: a plain miss
        Header h{};
        if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return why = "shorter than its header", nullptr;
        if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return why = "not a program file (magic word)", nullptr;
        const auto size = std::filesystem::file_size(path);
        if (size != sizeof h + h.key_bytes + h.image_bytes)
            return why = "truncated or extended: " + std::to_string(size) + " bytes, its header says " +
                         std::to_string(sizeof h + h.key_bytes + h.image_bytes),
                   nullptr;
        std::string key(h.key_bytes, '\0');
        auto image = std::make_shared<std::vector<char>>(h.image_bytes);
        if (!in.read(key.data(), std::streamsize(key.size())) || !in.read(image->data(), std::streamsize(image->size())))
            return why = "could not be read whole", nullptr;
        if (key != key_bytes) return why = "holds another key (a hash collision)", nullptr;
        if (fnv1a(image->data(), image->size()) != h.image_checksum) return why = "its program fails its checksum", nullptr;
        return image;
    }

    // Temporary file, flushed, renamed over the final name.
    void write(const std::filesystem::path& path, const std::string& key_bytes, const std::vector<char>& image) {
        static std::atomic<unsigned> counter{0};
        const std::filesystem::path tmp =
            path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
        Header h{};
        std::memcpy(h.magic, kMagic, sizeof kMagic);
        h.key_bytes = key_bytes.size();
        h.image_bytes = image.size();
        h.image_checksum = fnv1a(image.data(), image.size());
        {
            std::FILE* f = std::fopen(tmp.c_str(), "wb");
            if (f == nullptr) throw std::runtime_error("program cache: cannot write " + tmp.string());
            const bool ok = std::fwrite(&h, sizeof h, 1, f) == 1 &&
                            std::fwrite(key_bytes.data(), 1, key_bytes.size(), f) == key_bytes.size() &&
                            std::fwrite(image.data(), 1, image.size(), f) == image.size() && std::fflush(f) == 0 &&
                            ::fsync(::fileno(f)) == 0;
            std::fclose(f);
            if (!ok) {
                std::filesystem::remove(tmp);
                throw std::runtime_error("program cache: writing " + tmp.string() + " failed");
            }
        }
        std::filesystem::rename(tmp, path);
    }
};

ProgramCache::ProgramCache(std::filesystem::path dir, std::size_t memory_entries)
    : impl_(std::make_unique<Impl>()) {
    if (memory_entries < 1) throw std::invalid_argument("ProgramCache: keep at least one program in memory");
    std::filesystem::create_directories(dir);
    impl_->dir = std::move(dir);
    impl_->capacity = memory_entries;
}

ProgramCache::~ProgramCache() = default;

CacheResult ProgramCache::get(const ProgramKey& key, const std::function<std::vector<char>()>& build) {
    const std::string key_bytes = serialise(key), name = name_of(key_bytes);
    const std::filesystem::path path = impl_->dir / (name + ".prog");
    std::lock_guard<std::mutex> lock(impl_->mutex);
    CacheResult r;
    if (auto it = impl_->where.find(name); it != impl_->where.end()) {
        r.image = impl_->remember(name, it->second->second);
        r.outcome = CacheOutcome::memory_hit;
        return r;
    }
    std::string why;
    if (auto image = impl_->read(path, key_bytes, why)) {
        r.image = impl_->remember(name, std::move(image));
        r.outcome = CacheOutcome::disk_hit;
        return r;
    }
    auto image = std::make_shared<const std::vector<char>>(build());
    impl_->write(path, key_bytes, *image);
    r.image = impl_->remember(name, std::move(image));
    r.outcome = why.empty() ? CacheOutcome::built : CacheOutcome::rebuilt_corrupt;
    r.note = why.empty() ? "" : path.filename().string() + " " + why;
    return r;
}

int choose_strategy(const std::array<StrategyCost, 3>& costs, double expected_calls) {
    int best = 0;
    for (int s = 1; s < 3; ++s)
        if (costs[s].prep_ms + expected_calls * costs[s].call_ms < costs[best].prep_ms + expected_calls * costs[best].call_ms)
            best = s;
    return best;
}

// ---- (b) bucketed ----------------------------------------------------------------------------------------
// A kernel per bucket. Its rows are known when it is compiled, so a block can own all of them (up to 64; larger
// buckets in blocks of 64 rows): each thread keeps kRows / 16 rows of one column in registers, and the W tile a
// block loads serves kRows rows instead of the generic kernel's 16 — W is read a quarter as often, and the loops
// unroll. The grid covers the bucket's rows: loads of rows ≥ M read nothing (zeros), stores of rows ≥ M do not
// happen.

namespace {

constexpr int kT = 16;

template <int kBucket>
__global__ void gemm_bucket_kernel(Gemm g) {
    constexpr int kRows = kBucket < 64 ? kBucket : 64, kPer = kRows / kT;  // rows per block, per thread
    __shared__ float xs[kRows][kT], ws[kT][kT];
    const int row0 = blockIdx.y * kRows + threadIdx.y, col = blockIdx.x * kT + threadIdx.x;
    float acc[kPer] = {};
    for (int k0 = 0; k0 < g.k; k0 += kT) {
        const bool k_in = k0 + threadIdx.x < g.k;
#pragma unroll
        for (int p = 0; p < kPer; ++p) {  // padding rows (≥ M): zeros, never read from X
            const int row = row0 + p * kT;
            xs[p * kT + threadIdx.y][threadIdx.x] = row < g.m && k_in ? __bfloat162float(g.x[std::size_t(row) * g.k + k0 + threadIdx.x]) : 0.0f;
        }
        ws[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < g.k && col < g.n ? __bfloat162float(g.w[std::size_t(k0 + threadIdx.y) * g.n + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kT; ++kk) {
            const float w = ws[kk][threadIdx.x];
#pragma unroll
            for (int p = 0; p < kPer; ++p) acc[p] += xs[p * kT + threadIdx.y][kk] * w;
        }
        __syncthreads();
    }
#pragma unroll
    for (int p = 0; p < kPer; ++p)  // padding rows: never written to Y
        if (row0 + p * kT < g.m && col < g.n) g.y[std::size_t(row0 + p * kT) * g.n + col] = __float2bfloat16(acc[p]);
}

template <int kBucket>
void launch_bucket(const Gemm& g, cudaStream_t stream) {
    constexpr int kRows = kBucket < 64 ? kBucket : 64;
    const dim3 grid((g.n + kT - 1) / kT, kBucket / kRows), block(kT, kT);
    gemm_bucket_kernel<kBucket><<<grid, block, 0, stream>>>(g);
    LABS_CHECK_LAUNCH();
}

}  // namespace

void launch_gemm_bucketed(const Gemm& g, std::span<const int> buckets, cudaStream_t stream) {
    int bucket = 0;
    for (const int b : buckets)
        if (b >= g.m && (bucket == 0 || b < bucket)) bucket = b;
    // The instances this solution carries; other bucket sizes are refused.
    if (!gpulab::with_constant<16, 64, 256, 512, 1024, 2048, 4096>(bucket, [&]<int Rows>() { launch_bucket<Rows>(g, stream); }))
        throw std::invalid_argument("launch_gemm_bucketed: no bucket of 16, 64, 256, 512, 1024, 2048, 4096 rows holds M = " +
                                    std::to_string(g.m));
}

// ---- (c) specialised ----------------------------------------------------------------------------------------
// The kernel's source is written for one M, N, K: for M ≤ 16 a "skinny" kernel (a block owns 16 output columns;
// its threads split K, each keeping two columns of all M rows in registers, so W is read once, in 32-byte pieces
// of many rows at a time; the partial sums meet in shared memory), above it tiles with the bounds known at
// compile time. NVRTC compiles it to a cubin for this GPU through the cache; the runtime's library API
// loads each program once, and cudaLaunchKernel launches it.

constexpr int kSkinnyRows = 16;  // up to here, the skinny kernel: its shared memory grows with M

std::string specialized_source(int m, int n, int k) {
    std::ostringstream src;
    src << "// specialised: M = " << m << ", N = " << n << ", K = " << k << "\n"
        << "constexpr int M = " << m << ", N = " << n << ", K = " << k << ";\n"
        << "typedef unsigned short bf16_bits;\n"
        << "__device__ __forceinline__ float to_float(bf16_bits b) { return __uint_as_float(unsigned(b) << 16); }\n"
        << "__device__ __forceinline__ bf16_bits to_bf16(float f) {  // round to nearest even\n"
        << "    unsigned u = __float_as_uint(f);\n"
        << "    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu)) return bf16_bits((u >> 16) | 0x40);\n"
        << "    return bf16_bits((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n"
        << "}\n";
    if (m <= kSkinnyRows) {
        src << "constexpr int KT = 128, COLS = 16, TPR = COLS / 2, RPP = 256 / TPR;  // threads per row, rows per pass\n"
            << "// Known when the source is written: with them the compiler drops the bounds checks, and a thread's\n"
            << "// loads of W in the unrolled loop below have no branch between them (they issue back to back).\n"
            << "constexpr bool EVEN_K = K % KT == 0, FULL_N = N % COLS == 0;\n"
            << "extern \"C\" __global__ void __launch_bounds__(256) gemm(const bf16_bits* x, const bf16_bits* w, bf16_bits* y) {\n"
            << "    __shared__ float xs[M][KT];\n"
            << "    __shared__ float part[RPP][M][COLS];\n"
            << "    const int pair = threadIdx.x % TPR, r0 = threadIdx.x / TPR;\n"
            << "    const int col = blockIdx.x * COLS + 2 * pair;\n"
            << "    float acc[M][2];\n"
            << "#pragma unroll\n"
            << "    for (int r = 0; r < M; ++r) acc[r][0] = acc[r][1] = 0.0f;\n"
            << "    for (int k0 = 0; k0 < K; k0 += KT) {\n"
            << "        for (int i = threadIdx.x; i < M * KT; i += 256) {\n"
            << "            const int r = i / KT, kk = i % KT;\n"
            << "            xs[r][kk] = k0 + kk < K ? to_float(x[(unsigned long long)r * K + k0 + kk]) : 0.0f;\n"
            << "        }\n"
            << "        __syncthreads();\n"
            << "#pragma unroll 4\n"
            << "        for (int kk = r0; kk < KT; kk += RPP) {\n"
            << "            if (!EVEN_K && k0 + kk >= K) break;  // no branch at all when KT divides K\n"
            << "            const bf16_bits* wr = w + (unsigned long long)(k0 + kk) * N + col;\n"
            << "            float w0 = 0.0f, w1 = 0.0f;\n"
            << "            if (FULL_N || (N % 2 == 0 && col < N)) {  // two columns in one 4-byte load\n"
            << "                const unsigned v = *reinterpret_cast<const unsigned*>(wr);\n"
            << "                w0 = to_float(bf16_bits(v & 0xffffu)), w1 = to_float(bf16_bits(v >> 16));\n"
            << "            } else {\n"
            << "                if (col < N) w0 = to_float(wr[0]);\n"
            << "                if (col + 1 < N) w1 = to_float(wr[1]);\n"
            << "            }\n"
            << "#pragma unroll\n"
            << "            for (int r = 0; r < M; ++r) acc[r][0] += xs[r][kk] * w0, acc[r][1] += xs[r][kk] * w1;\n"
            << "        }\n"
            << "        __syncthreads();\n"
            << "    }\n"
            << "#pragma unroll\n"
            << "    for (int r = 0; r < M; ++r) part[r0][r][2 * pair] = acc[r][0], part[r0][r][2 * pair + 1] = acc[r][1];\n"
            << "    __syncthreads();\n"
            << "    for (int i = threadIdx.x; i < M * COLS; i += 256) {\n"
            << "        const int r = i / COLS, c = blockIdx.x * COLS + i % COLS;\n"
            << "        if (c >= N) continue;\n"
            << "        float sum = 0.0f;\n"
            << "        for (int p = 0; p < RPP; ++p) sum += part[p][r][i % COLS];\n"
            << "        y[(unsigned long long)r * N + c] = to_bf16(sum);\n"
            << "    }\n"
            << "}\n";
    } else {
        src << "constexpr int T = 16;\n"
            << "extern \"C\" __global__ void gemm(const bf16_bits* x, const bf16_bits* w, bf16_bits* y) {\n"
            << "    __shared__ float xs[T][T], ws[T][T];\n"
            << "    const int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;\n"
            << "    float acc = 0.0f;\n"
            << "    for (int k0 = 0; k0 < K; k0 += T) {\n"
            << "        xs[threadIdx.y][threadIdx.x] = row < M && k0 + threadIdx.x < K ? to_float(x[(unsigned long long)row * K + k0 + threadIdx.x]) : 0.0f;\n"
            << "        ws[threadIdx.y][threadIdx.x] = k0 + threadIdx.y < K && col < N ? to_float(w[(unsigned long long)(k0 + threadIdx.y) * N + col]) : 0.0f;\n"
            << "        __syncthreads();\n"
            << "#pragma unroll\n"
            << "        for (int kk = 0; kk < T; ++kk) acc += xs[threadIdx.y][kk] * ws[kk][threadIdx.x];\n"
            << "        __syncthreads();\n"
            << "    }\n"
            << "    if (row < M && col < N) y[(unsigned long long)row * N + col] = to_bf16(acc);\n"
            << "}\n";
    }
    return src.str();
}

// NVRTC: the source to a cubin for `arch` ("sm_90"). Throws with the compiler's log on failure.
std::vector<char> compile_cubin(const std::string& source, const std::string& arch, const std::string& options) {
    nvrtcProgram prog = nullptr;
    if (nvrtcCreateProgram(&prog, source.c_str(), "specialized.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
        throw std::runtime_error("nvrtcCreateProgram failed");
    std::vector<std::string> opts{"--gpu-architecture=" + arch};
    std::istringstream more(options);
    for (std::string o; more >> o;) opts.push_back(o);
    std::vector<const char*> argv;
    for (const std::string& o : opts) argv.push_back(o.c_str());
    const nvrtcResult compiled = nvrtcCompileProgram(prog, int(argv.size()), argv.data());
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    if (log_size > 0) nvrtcGetProgramLog(prog, log.data());
    if (compiled != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&prog);
        throw std::runtime_error("NVRTC could not compile the specialised kernel:\n" + log);
    }
    std::size_t size = 0;
    nvrtcGetCUBINSize(prog, &size);
    std::vector<char> cubin(size);
    nvrtcGetCUBIN(prog, cubin.data());
    nvrtcDestroyProgram(&prog);
    return cubin;
}

namespace {

std::string this_arch() {
    int dev = 0, major = 0, minor = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    return "sm_" + std::to_string(major * 10 + minor);
}

// Each loaded program once per process: library and kernel by the program's bytes (the runtime's library API:
// no link to the driver library, which a machine without a GPU does not have).
cudaKernel_t kernel_of(const std::shared_ptr<const std::vector<char>>& image) {
    static std::mutex mutex;
    static std::map<const std::vector<char>*, std::pair<std::shared_ptr<const std::vector<char>>, cudaKernel_t>> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = loaded.find(image.get()); it != loaded.end()) return it->second.second;
    cudaLibrary_t library = nullptr;
    cudaKernel_t kernel = nullptr;
    CUDA_CHECK(cudaLibraryLoadData(&library, image->data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, "gemm"));
    loaded[image.get()] = {image, kernel};
    return kernel;
}

}  // namespace

void launch_gemm_specialized(const Gemm& g, ProgramCache& cache, cudaStream_t stream) {
    static const std::string arch = this_arch();
    static const int driver = [] {
        int v = 0;
        CUDA_CHECK(cudaDriverGetVersion(&v));
        return v;
    }();
    static const int nvrtc = [] {
        int major = 0, minor = 0;
        if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) throw std::runtime_error("nvrtcVersion failed");
        return 1000 * major + 10 * minor;
    }();
    const ProgramKey key{specialized_source(g.m, g.n, g.k), "--std=c++17", arch, driver, nvrtc};
    const CacheResult r = cache.get(key, [&] { return compile_cubin(key.source, key.arch, key.options); });
    const cudaKernel_t kernel = kernel_of(r.image);
    void* args[] = {const_cast<__nv_bfloat16**>(&g.x), const_cast<__nv_bfloat16**>(&g.w), const_cast<__nv_bfloat16**>(&g.y)};
    const bool skinny = g.m <= kSkinnyRows;
    const dim3 grid = skinny ? dim3((g.n + 15) / 16, 1) : dim3((g.n + 15) / 16, (g.m + 15) / 16);
    const dim3 block = skinny ? dim3(256, 1) : dim3(16, 16);
    CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, 0, stream));
}
