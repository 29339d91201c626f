/**
 * @file banks_instances.cuh
 * @brief Lab 04: your layouts, handed to the grader and the experiment (host tables and the clock64
 * probe of banks_probe.cuh).
 *
 * FROZEN: do not edit, and do not include it: the build compiles it at the end of banks.cu's translation
 * unit (labs_add_lab's APPEND_TO_EDIT), where PaddedLayout, SwizzledLayout and SwizzledLayoutBf16 are
 * defined.
 */
#pragma once

#include <stdexcept>

#include "banks_probe.cuh"

std::string layout_name(LayoutId id) {
    switch (id) {
        case LayoutId::plain: return "plain";
        case LayoutId::plain_bf16: return "plain_bf16";
        case LayoutId::padded: return "padded";
        case LayoutId::swizzled: return "swizzled";
        case LayoutId::swizzled_bf16: return "swizzled_bf16";
    }
    throw std::invalid_argument("unknown layout");
}

LayoutTable layout_table(LayoutId id) {
    switch (id) {
        case LayoutId::plain: return banks::table_of<PlainLayout, float>();
        case LayoutId::plain_bf16: return banks::table_of<PlainLayout, __nv_bfloat16>();
        case LayoutId::padded: return banks::table_of<PaddedLayout, float>();
        case LayoutId::swizzled: return banks::table_of<SwizzledLayout, float>();
        case LayoutId::swizzled_bf16: return banks::table_of<SwizzledLayoutBf16, __nv_bfloat16>();
    }
    throw std::invalid_argument("unknown layout");
}

ProbeCycles probe_layout(LayoutId id, int reps) {
    switch (id) {
        case LayoutId::plain: return banks::probe<PlainLayout, float>(reps);
        case LayoutId::plain_bf16: return banks::probe<PlainLayout, __nv_bfloat16>(reps);
        case LayoutId::padded: return banks::probe<PaddedLayout, float>(reps);
        case LayoutId::swizzled: return banks::probe<SwizzledLayout, float>(reps);
        case LayoutId::swizzled_bf16: return banks::probe<SwizzledLayoutBf16, __nv_bfloat16>(reps);
    }
    throw std::invalid_argument("unknown layout");
}
