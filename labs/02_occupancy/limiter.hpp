/**
 * @file limiter.hpp
 * @brief Lab 02: the words the lab uses for the four resources (answers.toml's limiter questions, Residency's
 * limiter), from the occupancy model's resource. Shared by the answer key and the checks.
 *
 * FROZEN: do not edit.
 */
#pragma once

#include <string>

#include "labs/models/occupancy.hpp"

/** @brief "threads", "registers", "shared_memory" or "block_limit". @param r the model's resource */
inline std::string limiter_word(gpulab::models::Resource r) {
    switch (r) {
        case gpulab::models::Resource::threads: return "threads";
        case gpulab::models::Resource::regs: return "registers";
        case gpulab::models::Resource::smem: return "shared_memory";
        case gpulab::models::Resource::blocks: return "block_limit";
    }
    return "";
}
