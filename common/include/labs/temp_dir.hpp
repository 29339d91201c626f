/**
 * @file temp_dir.hpp
 * @brief A fresh temporary directory that is removed with its owner (checks and benches that write files).
 */
#pragma once

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

#include <unistd.h>

namespace gpulab {

/** @brief A new directory under the system's temporary directory, named after @p tag, this process and a random
 *  number; removed with everything in it when the object goes (errors ignored). */
struct TempDir {
    std::filesystem::path path;  ///< the directory
    /** @param tag a word for the name (which check or bench made it) */
    explicit TempDir(const std::string& tag) {
        path = std::filesystem::temp_directory_path() /
               ("labs-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

}  // namespace gpulab
