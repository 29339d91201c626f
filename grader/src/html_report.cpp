// The pages a person reads after a run (grader/html_report.hpp): a student's report and a class's gradebook as
// self-contained HTML with inline SVG, every picture drawn from the run's numbers.
#include "grader/html_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "batch_detail.hpp"
#include "grader/report.hpp"

namespace gpulab::grader {
namespace {

using nlohmann::json;

std::string esc(const std::string& s) { return markup_escape(s); }

// A number as a person reads it: three significant digits, no exponent for ordinary sizes.
std::string fmt(double v, int digits = 3) {
    if (!std::isfinite(v)) return "—";
    char buf[64];
    const double a = std::fabs(v);
    if (a != 0 && (a >= 1e7 || a < 1e-3)) std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    else {
        const int whole = a < 1 ? 1 : static_cast<int>(std::floor(std::log10(a))) + 1;
        std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - whole), v);
    }
    return buf;
}

std::string pts(double v) { return format_points(v); }

// A power of ten as an axis label: 0.01, 0.1, 1, 10, 1000, 1e+06.
std::string tick(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// An SVG coordinate (one decimal).
std::string px(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

double number(const json& j, const char* key, double fallback = NAN) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return fallback;
    return j[key].get<double>();
}

std::string text(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
    return j[key].get<std::string>();
}

// What @p draw returns, or, when the report's data for it is not what it expects (a saved report edited or from
// another version), a line saying so: one picture's trouble never costs the page.
template <class Draw>
std::string drawn(Draw&& draw, const std::string& what) {
    try {
        return draw();
    } catch (const std::exception& e) {
        return "<p class=\"why\">" + esc(what) + " could not be drawn from this report's data (" + esc(e.what()) + ").</p>";
    }
}

// ---------------------------------------------------------------- the shell

const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:18px 22px 40px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:15px;margin:16px 0 6px}
.sub{color:#5b6470}
section.lab,section.card{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:10px 16px 14px;margin:14px 0}
table{border-collapse:collapse;font-size:13px;width:100%}
th,td{border-bottom:1px solid #e6e9ed;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.st{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600;white-space:nowrap}
.st-pass{background:#d8f3dc;color:#1b5e20}.st-partial{background:#fff3c4;color:#7a5b00}
.st-fail,.st-error,.st-tampered,.st-suspicious{background:#ffd6d6;color:#8a1111}
.st-skipped,.st-not_run,.st-not_answered{background:#e8eaee;color:#4a525c}.st-invalid{background:#e7dcff;color:#4a2a8a}
.hint{color:#5b6470;font-size:12px}
.figs{display:flex;flex-wrap:wrap;gap:14px;margin-top:10px}
figure{margin:0;background:#fbfcfd;border:1px solid #e6e9ed;border-radius:6px;padding:6px 8px}
figcaption{font-size:12px;color:#3b434d;max-width:520px}
.why{font-size:12px;color:#5b6470;font-style:italic}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:13px}
.flag{display:inline-block;background:#ffe9c7;color:#7a4100;border-radius:4px;padding:0 5px;font-size:12px;margin-right:3px}
svg text{font:11px system-ui,sans-serif;fill:#333}
)";

std::string page(const std::string& title, const std::string& body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" "
           "content=\"width=device-width,initial-scale=1\">\n<title>" +
           esc(title) + "</title>\n<style>" + kStyle + "</style></head>\n<body><main>\n" + body +
           "</main></body></html>\n";
}

std::string status_badge(const std::string& status) {
    std::string shown = status;
    std::transform(shown.begin(), shown.end(), shown.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return "<span class=\"st st-" + esc(status) + "\">" + esc(shown) + "</span>";
}

// ---------------------------------------------------------------- timings

struct Timing {
    std::string name;
    double median = 0, q1 = 0, q3 = 0, rel_ci = NAN;
    int count = 0;
};

// The timings a check's details hold at their top level (each {median_ms, q1_ms, q3_ms, ...}), and the baseline's
// alone; in the details' order (JSON objects are sorted by key).
std::vector<Timing> timings_of(const json& details) {
    std::vector<Timing> out;
    if (!details.is_object()) return out;
    const auto add = [&out](const std::string& name, const json& t) {
        if (!t.is_object() || !t.contains("median_ms") || !t["median_ms"].is_number()) return;
        Timing x;
        x.name = name;
        x.median = t["median_ms"].get<double>();
        x.q1 = number(t, "q1_ms", x.median);
        x.q3 = number(t, "q3_ms", x.median);
        x.rel_ci = number(t, "rel_ci");
        x.count = static_cast<int>(number(t, "count", 0));
        out.push_back(x);
    };
    for (const auto& [k, v] : details.items())
        if (k != "baseline_alone") add(k, v);
    if (details.contains("baseline_alone") && details["baseline_alone"].is_object())
        add("baseline alone (" + text(details["baseline_alone"], "id") + ")", details["baseline_alone"].value("timing", json()));
    return out;
}

std::string timings_svg(const std::vector<Timing>& ts) {
    const double w = 480, row = 22, left = 170, right = 60;
    double top = 0;
    for (const Timing& t : ts) top = std::max(top, t.q3);
    if (top <= 0) return "";
    top *= 1.08;
    const double h = row * static_cast<double>(ts.size()) + 26;
    std::ostringstream s;
    s << "<svg class=\"timings\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
      << "\" viewBox=\"0 0 " << w << " " << h << "\" role=\"img\" aria-label=\"timings\">";
    const auto x = [&](double ms) { return left + (w - left - right) * ms / top; };
    for (std::size_t i = 0; i < ts.size(); ++i) {
        const Timing& t = ts[i];
        const double y = 6 + row * static_cast<double>(i);
        s << "<text x=\"" << left - 6 << "\" y=\"" << px(y + 12) << "\" text-anchor=\"end\">" << esc(t.name) << "</text>";
        s << "<rect x=\"" << left << "\" y=\"" << px(y + 3) << "\" width=\"" << px(x(t.median) - left) << "\" height=\"12\" fill=\""
          << (t.name == "work" || t.name == "pipeline" || t.name == "input" ? "#3d7dd8" : "#9aa5b1") << "\"><title>"
          << esc(t.name) << ": median " << fmt(t.median) << " ms, quartiles " << fmt(t.q1) << "–" << fmt(t.q3) << " ms, "
          << t.count << " runs" << (std::isfinite(t.rel_ci) ? ", ±" + fmt(t.rel_ci * 100, 2) + "% (median's interval)" : "")
          << "</title></rect>";
        s << "<line x1=\"" << px(x(t.q1)) << "\" x2=\"" << px(x(t.q3)) << "\" y1=\"" << px(y + 9) << "\" y2=\"" << px(y + 9)
          << "\" stroke=\"#111\" stroke-width=\"1.5\"/>";
        s << "<text x=\"" << px(x(t.q3) + 4) << "\" y=\"" << px(y + 12) << "\">" << fmt(t.median) << " ms</text>";
    }
    const double ya = 6 + row * static_cast<double>(ts.size()) + 4;
    s << "<line x1=\"" << left << "\" x2=\"" << w - right << "\" y1=\"" << px(ya) << "\" y2=\"" << px(ya) << "\" stroke=\"#999\"/>";
    s << "<text x=\"" << left << "\" y=\"" << px(ya + 13) << "\">0</text><text x=\"" << w - right << "\" y=\"" << px(ya + 13)
      << "\" text-anchor=\"end\">" << fmt(top) << " ms</text>";
    s << "</svg>";
    return s.str();
}

// ---------------------------------------------------------------- roofline and gauge

// The work a check's graded code must do, in units of its time: the report holds the rates its floor's work reached
// (details.work_model: tflops, gbps, host_gbps, flop_per_byte), never the bytes and FLOPs themselves, which answer
// some labs' questions; an older report, bytes_moved. Here as amounts per millisecond of @p t_ms, so that the
// baseline's and the reference's times place them too.
struct WorkModel {
    double bytes = 0, flops = 0, host_bytes = 0;  // over t_ms
    bool tensor = false;
};

WorkModel work_model(const json& details, double t_ms) {
    WorkModel m;
    const double s = t_ms * 1e-3;
    if (details.contains("work_model") && details["work_model"].is_object()) {
        const json& w = details["work_model"];
        m.flops = number(w, "tflops", 0) * 1e12 * s;
        m.bytes = number(w, "gbps", 0) * 1e9 * s;
        m.host_bytes = number(w, "host_gbps", 0) * 1e9 * s;
        m.tensor = w.value("tensor", false);
    } else {
        m.bytes = number(details, "bytes_moved", 0);
    }
    return m;
}

// Log-scale axis ticks at each power of ten in [lo, hi].
std::vector<double> decades(double lo, double hi) {
    std::vector<double> out;
    for (double e = std::ceil(std::log10(lo)); e <= std::floor(std::log10(hi)) + 1e-9; e += 1) out.push_back(std::pow(10.0, e));
    return out;
}

std::string roofline_svg(const WorkModel& m, double t_ms, double base_ms, double ref_ms, const json& ceilings,
                         const std::string& id, std::string& caption) {
    const double bw = number(ceilings, "d2d_copy_gbps");
    const double peak = number(ceilings, m.tensor ? "bf16_gemm_tflops" : "fp32_fma_tflops");
    const double fp32 = number(ceilings, "fp32_fma_tflops");
    if (!(bw > 0) || !(peak > 0)) {
        caption = "No roofline: this run's ceilings (copy bandwidth, compute peak) were not measured.";
        return "";
    }
    const double ai = m.flops / m.bytes;                       // FLOP per byte
    const double perf = m.flops / (t_ms * 1e-3) / 1e12;         // TFLOP/s
    const double base = base_ms > 0 ? m.flops / (base_ms * 1e-3) / 1e12 : NAN;
    const double ref = ref_ms > 0 ? m.flops / (ref_ms * 1e-3) / 1e12 : NAN;
    const double ridge = peak * 1000 / bw;                       // FLOP/byte where the roofs meet
    const auto roof = [&](double x, double p) { return std::min(p, bw * x / 1000); };
    const double xmin = std::min(ai, ridge) / 20, xmax = std::max(ai, ridge) * 20;
    double ymin = std::min({perf, std::isfinite(base) ? base : perf, std::isfinite(ref) ? ref : perf, roof(xmin, peak)}) / 3,
           ymax = peak * 2.5;
    ymin = std::max(ymin, ymax * 1e-7);
    const double w = 520, h = 320, l = 62, r = 16, t = 14, b = 40;
    const auto X = [&](double x) { return l + (w - l - r) * (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)); };
    const auto Y = [&](double y) {
        y = std::clamp(y, ymin, ymax);
        return t + (h - t - b) * (1 - (std::log10(y) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)));
    };
    std::ostringstream s;
    s << "<svg class=\"roofline\" id=\"roofline-" << esc(id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
      << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h << "\" role=\"img\" aria-label=\"roofline\">";
    s << "<rect x=\"" << l << "\" y=\"" << t << "\" width=\"" << w - l - r << "\" height=\"" << h - t - b
      << "\" fill=\"#fff\" stroke=\"#ccd\"/>";
    for (const double d : decades(xmin, xmax))
        s << "<line x1=\"" << px(X(d)) << "\" x2=\"" << px(X(d)) << "\" y1=\"" << t << "\" y2=\"" << h - b
          << "\" stroke=\"#eef\"/><text x=\"" << px(X(d)) << "\" y=\"" << h - b + 14 << "\" text-anchor=\"middle\">" << tick(d)
          << "</text>";
    for (const double d : decades(ymin, ymax))
        s << "<line x1=\"" << l << "\" x2=\"" << w - r << "\" y1=\"" << px(Y(d)) << "\" y2=\"" << px(Y(d))
          << "\" stroke=\"#eef\"/><text x=\"" << l - 4 << "\" y=\"" << px(Y(d) + 4) << "\" text-anchor=\"end\">" << tick(d)
          << "</text>";
    s << "<text x=\"" << (l + w - r) / 2 << "\" y=\"" << h - 6 << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>";
    s << "<text transform=\"rotate(-90)\" x=\"" << -(t + h - b) / 2 << "\" y=\"13\" text-anchor=\"middle\">TFLOP/s</text>";
    const auto roof_path = [&](double p, const char* style, const std::string& label) {
        const double rg = p * 1000 / bw;
        s << "<polyline class=\"roof\" fill=\"none\" " << style << " points=\"" << px(X(xmin)) << "," << px(Y(roof(xmin, p)))
          << " " << px(X(std::min(rg, xmax))) << "," << px(Y(roof(std::min(rg, xmax), p))) << " " << px(X(xmax)) << ","
          << px(Y(roof(xmax, p))) << "\"><title>" << esc(label) << "</title></polyline>";
        s << "<text x=\"" << px(w - r - 4) << "\" y=\"" << px(Y(p) - 4) << "\" text-anchor=\"end\">" << esc(label) << "</text>";
    };
    roof_path(peak, "stroke=\"#222\" stroke-width=\"2\"",
              std::string(m.tensor ? "BF16 tensor " : "FP32 FMA ") + fmt(peak) + " TFLOP/s");
    if (m.tensor && fp32 > 0) roof_path(fp32, "stroke=\"#888\" stroke-dasharray=\"4 3\"", "FP32 FMA " + fmt(fp32) + " TFLOP/s");
    s << "<text x=\"" << px(X(xmin) + 4) << "\" y=\"" << px(Y(roof(xmin, peak)) - 6) << "\" transform=\"rotate(-"
      << px(std::atan2(Y(roof(xmin, peak)) - Y(roof(std::min(ridge, xmax), peak)), X(std::min(ridge, xmax)) - X(xmin)) * 180 / std::numbers::pi)
      << " " << px(X(xmin) + 4) << " " << px(Y(roof(xmin, peak)) - 6) << ")\">copy " << fmt(bw) << " GB/s</text>";
    if (std::isfinite(base))
        s << "<rect class=\"pt-baseline\" x=\"" << px(X(ai) - 5) << "\" y=\"" << px(Y(base) - 5)
          << "\" width=\"10\" height=\"10\" fill=\"#9aa5b1\" stroke=\"#333\"><title>the baseline, timed alone: " << fmt(base)
          << " TFLOP/s</title></rect>";
    if (std::isfinite(ref))
        s << "<path class=\"pt-reference\" d=\"M" << px(X(ai)) << "," << px(Y(ref) - 7) << " l7,7 l-7,7 l-7,-7 z\" fill=\"#2a9d8f\" "
          << "stroke=\"#133\"><title>the reference solution on this GPU: " << fmt(ref) << " TFLOP/s</title></path>";
    s << "<circle class=\"pt-student\" cx=\"" << px(X(ai)) << "\" cy=\"" << px(Y(perf)) << "\" r=\"6\" fill=\"#3d7dd8\" "
      << "stroke=\"#123\"><title>your code: " << fmt(perf) << " TFLOP/s at " << fmt(ai) << " FLOP/byte</title></circle>";
    s << "</svg>";
    const double bound = roof(ai, peak);
    caption = "Your code (●), at " + fmt(ai) + " FLOP per byte it must move, ran at " + fmt(perf) + " TFLOP/s, " + fmt(100 * perf / bound, 2) +
              "% of the roof at that intensity (" + (ai < ridge ? "memory-bound: the copy bandwidth" : "compute-bound: the peak") +
              ")" + (std::isfinite(base) ? "; the baseline (■) " + fmt(base) + " TFLOP/s" : "") +
              (std::isfinite(ref) ? "; the reference solution (◆) on this GPU " + fmt(ref) + " TFLOP/s" : "") +
              ". Roofs measured in this run.";
    return s.str();
}

std::string gauge_svg(double bytes, double t_ms, double base_ms, double ref_ms, double ceiling_gbps,
                      const std::string& ceiling_what, const std::string& id, std::string& caption) {
    const double gbps = bytes / (t_ms * 1e-3) / 1e9;
    const double base = base_ms > 0 ? bytes / (base_ms * 1e-3) / 1e9 : NAN;
    const double ref = ref_ms > 0 ? bytes / (ref_ms * 1e-3) / 1e9 : NAN;
    const double top = std::max({ceiling_gbps, gbps, std::isfinite(base) ? base : 0.0, std::isfinite(ref) ? ref : 0.0}) * 1.05;
    const double w = 480, l = 150, r = 70, row = 24;
    const std::vector<std::tuple<std::string, double, const char*>> bars = {
        {ceiling_what, ceiling_gbps, "#222"}, {"your code", gbps, "#3d7dd8"}, {"baseline alone", base, "#9aa5b1"},
        {"reference solution", ref, "#2a9d8f"}};
    std::ostringstream s;
    s << "<svg class=\"gauge\" id=\"gauge-" << esc(id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
      << "\" height=\"" << row * (std::isfinite(ref) ? 4 : 3) + 10 << "\" role=\"img\" aria-label=\"bandwidth\">";
    int i = 0;
    for (const auto& [name, v, colour] : bars) {
        if (!std::isfinite(v)) continue;
        const double y = 4 + row * i++;
        s << "<text x=\"" << l - 6 << "\" y=\"" << px(y + 13) << "\" text-anchor=\"end\">" << esc(name) << "</text><rect x=\"" << l
          << "\" y=\"" << px(y + 3) << "\" width=\"" << px((w - l - r) * v / top) << "\" height=\"14\" fill=\"" << colour
          << "\"><title>" << esc(name) << ": " << fmt(v) << " GB/s</title></rect><text x=\"" << px(l + (w - l - r) * v / top + 4)
          << "\" y=\"" << px(y + 13) << "\">" << fmt(v) << " GB/s</text>";
    }
    s << "</svg>";
    caption = "Your code moved the bytes it must at " + fmt(gbps) + " GB/s, " +
              fmt(100 * gbps / ceiling_gbps, 3) + "% of the " + ceiling_what + " measured in this run.";
    return s.str();
}

// The pictures of one performance check, or why there are none.
std::string perf_figures(const json& check, const json& ceilings, const std::string& lab, const json& reference) {
    const std::string status = text(check, "status");
    const json& d = check.value("details", json::object());
    const std::string id = lab + "-" + text(check, "id");
    if (status == "skipped" || status == "not_run" || !d.contains("time_ms") || !d["time_ms"].is_number())
        return "<p class=\"why\">No pictures: " +
               esc(status == "skipped" || status == "not_run" ? "the check did not run here (" + text(check, "message") + ")"
                                                             : std::string("the check recorded no time")) + ".</p>";
    const double t_ms = d["time_ms"].get<double>();
    const double base_ms = d.contains("baseline_alone") ? number(d["baseline_alone"], "median_ms", 0) : 0;
    const WorkModel m = work_model(d, t_ms);
    // The reference solution's time on this GPU: every graded ratio is a yardstick's time over the code's.
    const double ratio = number(d, "ratio");
    const std::string key = lab + "/" + text(check, "id");
    const double ref_ratio = reference.is_object() && reference.contains(key) && reference[key].is_number() ? reference[key].get<double>() : NAN;
    const double ref_ms = ratio > 0 && ref_ratio > 0 ? t_ms * ratio / ref_ratio : 0;
    std::string out = "<div class=\"figs\">";
    std::string caption;
    if (m.flops > 0 && m.bytes > 0) {
        const std::string svg = roofline_svg(m, t_ms, base_ms, ref_ms, ceilings, id, caption);
        out += "<figure class=\"fig-roofline\">" + svg + "<figcaption>" + esc(caption) + "</figcaption></figure>";
    } else if (m.bytes > 0 && number(ceilings, "d2d_copy_gbps") > 0) {
        const std::string svg =
            gauge_svg(m.bytes, t_ms, base_ms, ref_ms, number(ceilings, "d2d_copy_gbps"), "copy bandwidth", id, caption);
        out += "<figure class=\"fig-gauge\">" + svg + "<figcaption>" + esc(caption) + "</figcaption></figure>";
    } else if (m.host_bytes > 0 && number(ceilings, "h2d_pinned_gbps") > 0) {
        const std::string svg =
            gauge_svg(m.host_bytes, t_ms, base_ms, ref_ms, number(ceilings, "h2d_pinned_gbps"), "pinned host link", id, caption);
        out += "<figure class=\"fig-gauge\">" + svg + "<figcaption>" + esc(caption) + "</figcaption></figure>";
    } else {
        out += "<p class=\"why\">No roofline: this check's work is bounded by a time measured in the run (" +
               esc(text(check, "target")) + "), not by bytes and FLOPs" +
               (d.contains("work_model") || d.contains("bytes_moved") ? "" : ", or its report has no work model") + ".</p>";
    }
    const std::vector<Timing> ts = timings_of(d);
    if (!ts.empty())
        out += "<figure class=\"fig-timings\">" + timings_svg(ts) +
               "<figcaption>Each timing's median (bar) and quartiles (line); the ratio " + fmt(number(d, "ratio")) +
               " is measured from them, interleaved in this run.</figcaption></figure>";
    return out + "</div>";
}

// ---------------------------------------------------------------- each lab's own picture

// The check @p id of @p lab, or null.
const json* check_of(const json& lab, const std::string& id) {
    if (!lab.contains("checks") || !lab["checks"].is_array()) return nullptr;
    for (const json& c : lab["checks"])  // by reference into the report: a pointer to it outlives the loop
        if (text(c, "id") == id) return &c;
    return nullptr;
}

const json& details_of(const json* c) {
    static const json none = json::object();
    return c && c->contains("details") && (*c)["details"].is_object() ? (*c)["details"] : none;
}

// Horizontal bars (name, value, colour), an optional reference line, linear or log scale.
struct Bar {
    std::string name;
    double value;
    std::string colour;
};
std::string bars_svg(const std::vector<Bar>& bars, const std::string& unit, bool log_scale, double line = NAN,
                     const std::string& line_name = "") {
    double top = std::isfinite(line) ? line : 0, bottom = INFINITY;
    for (const Bar& b : bars)
        if (std::isfinite(b.value) && b.value > 0) top = std::max(top, b.value), bottom = std::min(bottom, b.value);
    if (!(top > 0)) return "";
    if (std::isfinite(line) && line > 0) bottom = std::min(bottom, line);
    top *= log_scale ? 3 : 1.12;
    const double lo = log_scale ? bottom / 3 : 0;
    const double w = 520, l = 170, r = 80, row = 20;
    const double h = row * static_cast<double>(bars.size()) + 22;
    const auto X = [&](double v) {
        if (log_scale) return l + (w - l - r) * (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(top) - std::log10(lo));
        return l + (w - l - r) * v / top;
    };
    std::ostringstream s;
    s << "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\">";
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const double y = 4 + row * static_cast<double>(i);
        const Bar& b = bars[i];
        s << "<text x=\"" << l - 6 << "\" y=\"" << px(y + 12) << "\" text-anchor=\"end\">" << esc(b.name) << "</text>";
        if (!std::isfinite(b.value)) continue;
        s << "<rect x=\"" << l << "\" y=\"" << px(y + 2) << "\" width=\"" << px(std::max(1.0, X(b.value) - l)) << "\" height=\"13\" fill=\""
          << b.colour << "\"><title>" << esc(b.name) << ": " << fmt(b.value) << " " << esc(unit) << "</title></rect><text x=\""
          << px(X(b.value) + 4) << "\" y=\"" << px(y + 12) << "\">" << fmt(b.value) << " " << esc(unit) << "</text>";
    }
    if (std::isfinite(line) && line > 0)
        s << "<line x1=\"" << px(X(line)) << "\" x2=\"" << px(X(line)) << "\" y1=\"0\" y2=\"" << h - 16
          << "\" stroke=\"#c33\" stroke-dasharray=\"4 3\"/><text x=\"" << px(X(line)) << "\" y=\"" << h - 4
          << "\" text-anchor=\"middle\" fill=\"#c33\">" << esc(line_name) << "</text>";
    s << "</svg>";
    return s.str();
}

std::string figure(const std::string& lab, const std::string& svg, const std::string& caption, const std::string& suffix = "") {
    if (svg.empty()) return "";
    return "<figure class=\"lab-picture\" id=\"picture-" + esc(lab) + (suffix.empty() ? "" : "-" + esc(suffix)) + "\">" + svg +
           "<figcaption>" + esc(caption) + "</figcaption></figure>";
}

// A vertical line across a timeline: a model's time or a measured one.
struct Marker {
    std::string name;
    double us;
    std::string colour;
};

// What the observer saw on a time axis (Observation::timeline()): one lane per engine and stream — host launch
// calls, copies by direction, kernels —, each item where CUPTI timed it, and @p marks across them.
std::string timeline_svg(const json& tl, const std::vector<Marker>& marks, double axis_us = 0) {
    if (!tl.is_object() || !tl.contains("items") || !tl["items"].is_array()) return "";
    const json& items = tl["items"];
    const json& calls = tl.value("calls", json::array());
    if (items.empty() && calls.empty()) return "";
    // Lanes in engine order, streams numbered in order of first appearance.
    const std::vector<std::string> order = {"H2D", "kernels", "D2H", "D2D", "memset"};
    std::map<std::uint64_t, int> stream_no;
    for (const json& it : items) {
        const auto st = it.value("stream", std::uint64_t(0));
        if (!stream_no.count(st)) stream_no.emplace(st, static_cast<int>(stream_no.size()) + 1);
    }
    const auto rank = [&](const std::string& lane) {
        const auto at = std::find(order.begin(), order.end(), lane);
        return static_cast<int>(at - order.begin());
    };
    std::map<std::pair<int, int>, std::string> lanes;  // (engine, stream no) → its label
    for (const json& it : items) {
        const std::string lane = text(it, "lane");
        const int no = stream_no[it.value("stream", std::uint64_t(0))];
        const std::string engine = lane == "kernels" ? "SMs" : lane == "memset" ? "memset" : lane + " copy";
        lanes.emplace(std::make_pair(rank(lane), no), it.contains("stream") ? engine + " · stream " + std::to_string(no) : engine);
    }
    constexpr std::size_t kMaxLanes = 24;
    std::map<std::pair<int, int>, int> row_of;
    int rows = calls.empty() ? 0 : 1;
    for (const auto& [key, label] : lanes)
        if (row_of.size() < kMaxLanes) row_of[key] = rows++;
    double top = std::max(axis_us, number(tl, "span_us", 0));
    for (const Marker& m : marks)
        if (std::isfinite(m.us)) top = std::max(top, m.us);
    if (!(top > 0)) return "";
    top *= 1.03;
    const double w = 680, l = 150, r = 16, row = 20, h = row * rows + 26 + 13 * static_cast<double>(marks.size());
    const auto X = [&](double us) { return l + (w - l - r) * std::clamp(us, 0.0, top) / top; };
    std::ostringstream s;
    s << "<svg class=\"observed\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\">";
    const auto colour = [](const std::string& lane) {
        return lane == "H2D" ? "#3d7dd8" : lane == "kernels" ? "#2a9d8f" : lane == "D2H" ? "#e76f51" : lane == "D2D" ? "#8e6bbf" : "#999";
    };
    if (!calls.empty()) {
        s << "<text x=\"" << l - 6 << "\" y=\"16\" text-anchor=\"end\">host: launch calls</text>";
        for (const json& c : calls)
            s << "<line class=\"call\" x1=\"" << px(X(number(c, "at_us", 0))) << "\" x2=\"" << px(X(number(c, "at_us", 0)))
              << "\" y1=\"7\" y2=\"21\" stroke=\"#333\"><title>" << esc(text(c, "name")) << " at " << fmt(number(c, "at_us", 0))
              << " µs</title></line>";
    }
    for (const auto& [key, at] : row_of) {
        const double y = 4 + row * at;
        s << "<text x=\"" << l - 6 << "\" y=\"" << px(y + 12) << "\" text-anchor=\"end\">" << esc(lanes[key]) << "</text>";
    }
    std::size_t folded = 0;
    for (const json& it : items) {
        const std::string lane = text(it, "lane");
        const auto key = std::make_pair(rank(lane), stream_no[it.value("stream", std::uint64_t(0))]);
        if (!row_of.count(key)) {
            ++folded;
            continue;
        }
        const double y = 4 + row * row_of[key], a = number(it, "start_us", 0), b = number(it, "end_us", a);
        s << "<rect class=\"item\" x=\"" << px(X(a)) << "\" y=\"" << px(y + 2) << "\" width=\"" << px(std::max(0.6, X(b) - X(a) - 0.5))
          << "\" height=\"14\" fill=\"" << colour(lane) << "\" fill-opacity=\"0.85\"><title>" << esc(text(it, "name")) << ": "
          << fmt(a) << "–" << fmt(b) << " µs</title></rect>";
    }
    const double ya = 4 + row * rows + 2;
    s << "<line x1=\"" << l << "\" x2=\"" << w - r << "\" y1=\"" << ya << "\" y2=\"" << ya << "\" stroke=\"#999\"/><text x=\"" << l
      << "\" y=\"" << ya + 13 << "\">0</text><text x=\"" << w - r << "\" y=\"" << ya + 13 << "\" text-anchor=\"end\">" << fmt(top)
      << " µs</text>";
    int k = 0;
    for (const Marker& m : marks) {
        if (!std::isfinite(m.us)) continue;
        s << "<line class=\"marker\" x1=\"" << px(X(m.us)) << "\" x2=\"" << px(X(m.us)) << "\" y1=\"2\" y2=\"" << ya
          << "\" stroke=\"" << m.colour << "\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/><text x=\"" << px(X(m.us) - 3) << "\" y=\""
          << ya + 26 + 13 * k++ << "\" text-anchor=\"end\" fill=\"" << m.colour << "\">" << esc(m.name) << " " << fmt(m.us)
          << " µs</text>";
    }
    s << "</svg>";
    const double left_out = number(tl, "left_out", 0) + static_cast<double>(folded);
    if (left_out > 0) s << "<p class=\"hint\">" << fmt(left_out, 1) << " more items not drawn.</p>";
    return s.str();
}

// Lab 01: the copy/compute pipeline as the model schedules it from the stage times measured alone (each engine
// one chunk at a time), against the pipeline's measured time.
std::string picture_01(const json& lab) {
    const json& m = details_of(check_of(lab, "perf.model"));
    const json& sp = details_of(check_of(lab, "perf.speedup"));
    if (!m.contains("stages_us") || !sp.contains("chunks")) return "";
    const double h2d = number(m["stages_us"], "h2d"), ker = number(m["stages_us"], "kernel"), d2h = number(m["stages_us"], "d2h");
    const int chunks = static_cast<int>(number(sp, "chunks", 0));
    const double measured_us = number(m.value("pipeline", json::object()), "median_ms") * 1000;
    if (!(h2d > 0 && ker > 0 && d2h > 0) || chunks <= 0 || chunks > 4096) return "";
    // The model's schedule: each engine takes one chunk at a time, a chunk's stage after its previous stage.
    std::vector<std::array<double, 3>> end(chunks);
    const double dur[3] = {h2d, ker, d2h};
    const char* lanes[3] = {"H2D", "kernels", "D2H"};
    json schedule = {{"items", json::array()}, {"calls", json::array()}};
    for (int c = 0; c < chunks; ++c)
        for (int st = 0; st < 3; ++st) {
            double t = c > 0 ? end[c - 1][st] : 0;
            if (st > 0) t = std::max(t, end[c][st - 1]);
            end[c][st] = t + dur[st];
            schedule["items"].push_back({{"lane", lanes[st]}, {"name", "chunk " + std::to_string(c)}, {"start_us", t}, {"end_us", end[c][st]}});
        }
    const double model_us = end[chunks - 1][2];
    schedule["span_us"] = model_us;
    std::string observed;
    const json& ts = details_of(check_of(lab, "correct.timed_size"));
    if (ts.contains("timeline")) {
        const bool chaos = ts.value("under_chaos", false);
        observed = figure("01", timeline_svg(ts["timeline"], {{"model T_pipe", model_us, "#333"}, {"timed median", measured_us, "#c33"}}),
                          "What the GPU ran in one call of your pipeline at the timed size (" + std::to_string(chunks) +
                              " chunks), as the observer recorded it: each copy and kernel on its engine and stream, and the "
                              "host's launch calls, against the model's T_pipe and the median of the timed calls." +
                              (chaos ? " This call was drawn to run under the grader's chaos (random delays put on your "
                                       "streams): the gaps are the chaos's, not your code's."
                                     : ""),
                          "observed");
    }
    return observed + figure("01", timeline_svg(schedule, {{"model T_pipe", model_us, "#333"}, {"measured", measured_us, "#c33"}}),
                  "The pipeline of " + std::to_string(chunks) + " chunks as the model schedules it, from the stages timed alone (H2D " +
                      fmt(h2d) + " µs, kernel " + fmt(ker) + " µs, D2H " + fmt(d2h) + " µs a chunk; bottleneck: " +
                      text(m, "bottleneck") + "): T_pipe " + fmt(model_us) + " µs, against the measured " + fmt(measured_us) +
                      " µs.");
}

// Lab 04: the bank of each element of your layouts' 32 × 32 tiles (from your offset()), the worst column read
// outlined: 32 different colours down a column is one round.
std::string banks_figure(const json& lab) {
    std::ostringstream s;
    int drawn = 0;
    const double cell = 6.5, side = 32 * cell, gap = 26;
    s << "<svg class=\"banks\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 3 * (side + gap) << "\" height=\"" << side + 40 << "\">";
    for (const auto& [id, name] : std::vector<std::pair<std::string, std::string>>{
             {"layout.padded", "padded (a)"}, {"layout.swizzled", "swizzled (b)"}, {"layout.swizzled_bf16", "swizzled BF16 (c)"}}) {
        const json& d = details_of(check_of(lab, id));
        const json& banks = d.value("banks", json::array());
        if (!banks.is_array() || banks.size() != 32) continue;
        const double x0 = drawn * (side + gap) + 4, y0 = 18;
        s << "<g class=\"bank-grid\"><text x=\"" << x0 << "\" y=\"12\">" << esc(name) << "</text>";
        for (int row = 0; row < 32; ++row)
            for (int col = 0; col < 32 && col < static_cast<int>(banks[row].size()); ++col) {
                const int bank = banks[row][col].is_number_integer() ? banks[row][col].get<int>() : 0;
                s << "<rect x=\"" << px(x0 + col * cell) << "\" y=\"" << px(y0 + row * cell) << "\" width=\"" << cell << "\" height=\"" << cell
                  << "\" fill=\"hsl(" << (bank * 360 / 32) << ",70%," << (bank % 2 ? 62 : 48) << "%)\"><title>(" << row << ", " << col
                  << "): bank " << bank << "</title></rect>";
            }
        const double worst = number(d, "worst_column", 0);
        s << "<rect x=\"" << px(x0 + worst * cell) << "\" y=\"" << y0 << "\" width=\"" << cell << "\" height=\"" << side
          << "\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/><text x=\"" << x0 << "\" y=\"" << px(y0 + side + 14) << "\">column "
          << fmt(worst, 1) << ": " << fmt(number(d, "column_read_rounds", 0), 1) << " round(s)</text></g>";
        ++drawn;
    }
    s << "</svg>";
    if (drawn == 0) return "";
    return figure("04", s.str(),
                  "Your layouts' 32 × 32 tiles, each element coloured by the bank of its word (from your offset()), rows down, "
                  "columns across; outlined, the column whose read takes the most rounds. A column read is one round when "
                  "its 32 elements fall in 32 different banks (BF16: two elements share a word).",
                  "layout");
}

// Lab 04: bank conflicts of the shared-memory loads, as Nsight Compute counted them, per layout against the plain tile.
std::string picture_04(const json& lab) {
    const json& p = details_of(check_of(lab, "conflicts.padded"));
    const json& z = details_of(check_of(lab, "conflicts.swizzled"));
    const json& plain = p.contains("plain_conflicts") ? p["plain_conflicts"] : z.value("plain_conflicts", json::object());
    if (!plain.is_object() || plain.empty()) return "";
    // Measured counts only: the model's figures (its rounds, the plain tile's conflicts) answer the lab's questions.
    std::vector<Bar> bars = {{"plain tile (given)", number(plain, "loads"), "#666"},
                             {"padded (a)", number(p.value("conflicts", json::object()), "loads"), "#3d7dd8"},
                             {"swizzled (b)", number(z.value("conflicts", json::object()), "loads"), "#2a9d8f"}};
    return banks_figure(lab) + figure("04", bars_svg(bars, "conflicts", true),
                  "Shared-memory load bank conflicts over a whole transpose, counted by Nsight Compute in this run (log "
                  "scale): the given plain tile against your padded and swizzled ones.");
}

// Lab 06: each variant's time against the bound (the slower of load alone and compute alone).
std::string picture_06(const json& lab) {
    const json& d = details_of(check_of(lab, "perf.bound"));
    if (!d.contains("bound_ms")) return "";
    std::vector<Bar> bars;
    for (const auto& [k, v] : d.items())
        if (v.is_object() && v.contains("work") && v["work"].is_object())
            bars.push_back({k, number(v["work"], "median_ms") * 1000, k.rfind("producer", 0) == 0 ? "#2a9d8f" : "#3d7dd8"});
    std::sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.name < b.name; });
    bars.push_back({"load alone", number(d, "load_only_ms") * 1000, "#9aa5b1"});
    bars.push_back({"compute alone", number(d, "compute_only_ms") * 1000, "#9aa5b1"});
    return figure("06", bars_svg(bars, "µs", false, number(d, "bound_ms") * 1000, "bound"),
                  "Each pipeline's time in this run (stages in one warp group, and a producer warp with N slots) against the bound: "
                  "the slower of loading alone and computing alone, " + fmt(number(d, "bound_ms") * 1000) + " µs. Best: " +
                      text(d, "best") + ".");
}

// Lab 08: host and device per step, eager against graph replay.
std::string picture_08(const json& lab) {
    const json& h = details_of(check_of(lab, "perf.host_submit"));
    const json& e = details_of(check_of(lab, "perf.e2e_m1"));
    if (!h.contains("eager_us") && !e.contains("eager_us")) return "";
    std::vector<Bar> bars = {{"host submit: eager", number(h, "eager_us"), "#9aa5b1"},
                             {"host submit: replay", number(h, "graph_us"), "#3d7dd8"},
                             {"host submit: empty graph", number(h, "empty_graph_us"), "#ccc"},
                             {"step end to end: eager", number(e, "eager_us"), "#9aa5b1"},
                             {"step end to end: replay", number(e, "graph_us"), "#3d7dd8"},
                             {"step on the device", number(e, "device_us"), "#2a9d8f"}};
    std::string out = figure("08", bars_svg(bars, "µs", true),
                  "Per decode step, measured in this run: what the host spends submitting it (eager launches against one graph "
                  "replay), and the step end to end against its device time alone (log scale).");
    // Each step's host lane from its first launch call and its device lanes from its first kernel: under the
    // observer the first kernel of a step starts late (its tracing of the call), which says nothing of the step.
    const json& observed = details_of(check_of(lab, "launches.counts")).value("timelines", json::object());
    std::map<std::string, json> tl;
    std::map<std::string, double> delay;
    double axis = 0;  // one time axis for both: the replay's lanes against the eager step's
    for (const char* way : {"eager", "graph"}) {
        if (!observed.contains(way) || !observed[way].contains("items") || observed[way]["items"].empty()) continue;
        json t = observed[way];
        double first_call = INFINITY, first_item = INFINITY, span = 0;
        for (const json& c : t.value("calls", json::array())) first_call = std::min(first_call, number(c, "at_us", 0));
        for (const json& it : t["items"]) first_item = std::min(first_item, number(it, "start_us", 0));
        const double shift = std::isfinite(first_call) ? first_item - first_call : 0;
        for (json& it : t["items"]) {
            it["start_us"] = number(it, "start_us", 0) - shift, it["end_us"] = number(it, "end_us", 0) - shift;
            span = std::max(span, number(it, "end_us", 0));
        }
        for (const json& c : t.value("calls", json::array())) span = std::max(span, number(c, "at_us", 0));
        t["span_us"] = span;
        axis = std::max(axis, span);
        tl[way] = std::move(t), delay[way] = shift;
    }
    for (const auto& [way, t] : tl)
        out += figure("08", timeline_svg(t, {}, axis),
                      std::string(way == "eager" ? "One eager step: the given launchers' calls on the host"
                                                 : "One step of your graph: its replay call on the host") +
                          " and the kernels on the device, as the observer recorded them; the device lane is drawn from the "
                          "first kernel, which started " + fmt(delay[way]) + " µs after the first call under the observer (its "
                          "callbacks lengthen each call on the host; the times above are measured without them).",
                      way);
    return out;
}

// Lab 02: the streaming copy's bandwidth with 1, 2, 4 and 8 loads in flight per thread, at a quarter of the SM's
// warps, against the copy bandwidth: latency hidden by loads in flight rather than by occupancy.
std::string picture_02(const json& lab, const json& ceilings) {
    const json& d = details_of(check_of(lab, "perf.stream_copy"));
    const json& curve = d.value("gbps_by_loads", json::object());
    if (!curve.is_object() || curve.empty()) return "";
    std::vector<std::pair<double, double>> pts;
    for (const auto& [k, v] : curve.items())
        if (v.is_number()) pts.emplace_back(std::atof(k.c_str()), v.get<double>());
    std::sort(pts.begin(), pts.end());
    if (pts.size() < 2) return "";
    const double copy = number(ceilings, "d2d_copy_gbps");
    double top = std::isfinite(copy) ? copy : 0;
    for (const auto& p : pts) top = std::max(top, p.second);
    top *= 1.1;
    const double w = 520, h = 230, l = 60, r = 20, t = 12, b = 40, x0 = std::log2(pts.front().first), x1 = std::log2(pts.back().first);
    const auto X = [&](double loads) { return l + (w - l - r) * (std::log2(loads) - x0) / std::max(1e-9, x1 - x0); };
    const auto Y = [&](double g) { return t + (h - t - b) * (1 - g / top); };
    std::ostringstream s;
    s << "<svg class=\"curve\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\"><rect x=\"" << l
      << "\" y=\"" << t << "\" width=\"" << w - l - r << "\" height=\"" << h - t - b << "\" fill=\"#fff\" stroke=\"#ccd\"/>";
    if (std::isfinite(copy))
        s << "<line x1=\"" << l << "\" x2=\"" << w - r << "\" y1=\"" << px(Y(copy)) << "\" y2=\"" << px(Y(copy))
          << "\" stroke=\"#222\" stroke-dasharray=\"5 3\"/><text x=\"" << w - r - 4 << "\" y=\"" << px(Y(copy) - 4)
          << "\" text-anchor=\"end\">copy bandwidth " << fmt(copy) << " GB/s</text>";
    s << "<polyline fill=\"none\" stroke=\"#3d7dd8\" stroke-width=\"2\" points=\"";
    for (const auto& p : pts) s << px(X(p.first)) << "," << px(Y(p.second)) << " ";
    s << "\"/>";
    const double chosen = number(d, "loads");
    for (const auto& p : pts) {
        const bool mine = p.first == chosen;
        s << "<circle class=\"" << (mine ? "pt-student" : "pt") << "\" cx=\"" << px(X(p.first)) << "\" cy=\"" << px(Y(p.second)) << "\" r=\""
          << (mine ? 6 : 4) << "\" fill=\"" << (mine ? "#c33" : "#3d7dd8") << "\"><title>" << fmt(p.first, 1) << " loads: " << fmt(p.second)
          << " GB/s</title></circle><text x=\"" << px(X(p.first)) << "\" y=\"" << h - b + 14 << "\" text-anchor=\"middle\">" << fmt(p.first, 1)
          << "</text><text x=\"" << px(X(p.first)) << "\" y=\"" << px(Y(p.second) + 16) << "\" text-anchor=\"middle\">" << fmt(p.second)
          << "</text>";
    }
    s << "<text x=\"" << (l + w - r) / 2 << "\" y=\"" << h - 6 << "\" text-anchor=\"middle\">loads in flight per thread</text><text x=\""
      << l - 4 << "\" y=\"" << px(Y(0)) << "\" text-anchor=\"end\">0</text><text x=\"" << l - 4 << "\" y=\"" << t + 10
      << "\" text-anchor=\"end\">GB/s</text></svg>";
    return figure("02", s.str(),
                  "Your streaming copy at a quarter of the SM's warps, with 1, 2, 4 and 8 loads in flight per thread (a short "
                  "timing of each, in this run), against the copy bandwidth of this run's ceilings: at fixed occupancy, more "
                  "loads in flight hide more of the memory latency. Red: the setting the graded timings used, your fastest.");
}

// Lab 09: a shape's cost over r calls, P + r·T for the specialised kernel against r·T of the generic and bucketed
// ones, and where they cross.
std::string picture_09(const json& lab) {
    const json& d = details_of(check_of(lab, "perf.policy"));
    const json& costs = d.value("call_ms_generic_bucketed_specialized_and_p", json::object());
    if (!costs.is_object() || costs.empty()) return "";
    // The shape where specialising pays soonest.
    std::string best;
    double best_r = INFINITY;
    for (const auto& [shape, v] : costs.items()) {
        if (!v.is_array() || v.size() < 4) continue;
        const double tg = std::min(v[0].get<double>(), v[1].get<double>()), ts = v[2].get<double>(), p = v[3].get<double>();
        if (ts < tg && p / (tg - ts) < best_r) best_r = p / (tg - ts), best = shape;
    }
    if (best.empty()) return "";
    const json& v = costs[best];
    const double tgen = v[0].get<double>(), tb = v[1].get<double>(), ts = v[2].get<double>(), p = v[3].get<double>();
    const double rmax = best_r * 2.2, w = 520, h = 240, l = 56, r = 16, t = 10, b = 36;
    const double ymax = std::max({tgen, tb} ) * rmax * 1.05;
    const auto X = [&](double calls) { return l + (w - l - r) * calls / rmax; };
    const auto Y = [&](double ms) { return t + (h - t - b) * (1 - ms / ymax); };
    std::ostringstream s;
    s << "<svg class=\"crossover\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\">";
    s << "<rect x=\"" << l << "\" y=\"" << t << "\" width=\"" << w - l - r << "\" height=\"" << h - t - b << "\" fill=\"#fff\" stroke=\"#ccd\"/>";
    int legend = 0;
    const auto line = [&](double p0, double slope, const char* colour, const std::string& name) {
        s << "<line x1=\"" << px(X(0)) << "\" y1=\"" << px(Y(p0)) << "\" x2=\"" << px(X(rmax)) << "\" y2=\"" << px(Y(p0 + slope * rmax))
          << "\" stroke=\"" << colour << "\" stroke-width=\"2\"><title>" << esc(name) << "</title></line>";
        const double ly = t + 14 + 14 * legend++;
        s << "<line x1=\"" << l + 8 << "\" x2=\"" << l + 26 << "\" y1=\"" << ly - 4 << "\" y2=\"" << ly - 4 << "\" stroke=\"" << colour
          << "\" stroke-width=\"2\"/><text x=\"" << l + 30 << "\" y=\"" << ly << "\">" << esc(name) << "</text>";
    };
    line(0, tgen, "#9aa5b1", "generic r·T");
    line(0, tb, "#666", "bucketed r·T");
    line(p, ts, "#3d7dd8", "specialised P + r·T");
    s << "<circle class=\"crossover-point\" cx=\"" << px(X(best_r)) << "\" cy=\"" << px(Y(p + ts * best_r)) << "\" r=\"5\" fill=\"#c33\"/>"
      << "<text x=\"" << px(X(best_r) + 6) << "\" y=\"" << px(Y(p + ts * best_r) + 14) << "\" fill=\"#c33\">r* ≈ " << fmt(best_r) << " calls</text>";
    s << "<text x=\"" << (l + w - r) / 2 << "\" y=\"" << h - 6 << "\" text-anchor=\"middle\">calls r of shape " << esc(best)
      << "</text><text x=\"" << l - 4 << "\" y=\"" << px(Y(ymax) + 10) << "\" text-anchor=\"end\">" << fmt(ymax) << " ms</text><text x=\""
      << l - 4 << "\" y=\"" << px(Y(0)) << "\" text-anchor=\"end\">0</text></svg>";
    return figure("09", s.str(),
                  "Shape " + best + ", measured in this run: the specialised kernel costs P = " + fmt(p) + " ms to prepare, then " + fmt(ts) +
                      " ms a call, against " + fmt(tgen) + " ms (generic) and " + fmt(tb) + " ms (bucketed): it pays after r* = P / (T_other − T_spec) ≈ " +
                      fmt(best_r) + " calls, the soonest of the " + std::to_string(costs.size()) + " shapes timed.");
}

// Lab 03: the GEMM's traffic by tile size against what it moved. The model's MiB at the graded shape are the
// answers to traffic.mib_*: drawn only from the student's own answers, once graded right; the DRAM bytes each version
// moved come from --profile.
std::string traffic_figure(const json& lab) {
    std::vector<Bar> bars;
    std::size_t answered = 0;
    for (const char* tile : {"32x32", "64x64", "128x128"}) {
        const json* a = check_of(lab, std::string("traffic.mib_") + tile);
        if (a == nullptr || text(*a, "status") != "pass") continue;
        ++answered;
        bars.push_back({std::string("model, ") + tile + " tiles (your answer)", std::atof(text(*a, "measured").c_str()), "#9aa5b1"});
    }
    std::size_t measured = 0;
    for (const json& e : lab.value("profile", json::array())) {
        if (text(e, "target") != "gemms" || !text(e, "skipped").empty()) continue;
        const char* names[] = {"v1 moved (DRAM)", "v2 moved (DRAM)", "v3 moved (DRAM)"};
        const json& kernels = e.value("kernels", json::array());
        if (!kernels.is_array()) continue;
        for (const json& k : kernels) {
            if (measured >= 3) break;
            const json& m = k.value("metrics", json::object());
            const double bytes = number(m, "dram__bytes_read.sum", 0) + number(m, "dram__bytes_write.sum", 0);
            if (bytes > 0) bars.push_back({names[measured], bytes / (1024.0 * 1024.0), "#3d7dd8"});
            ++measured;
        }
    }
    if (bars.empty()) return "";
    std::string caption = "The GEMM's memory traffic at the graded shape, MiB (log scale): ";
    caption += answered > 0 ? "the model's traffic with independent tiles of each size, from your answers (graded right), "
                            : "answer traffic.mib_32x32, mib_64x64 and mib_128x128 in answers.toml to see the model's traffic per "
                              "tile size here; ";
    caption += measured > 0 ? std::string(answered > 0 ? "against " : "") +
                                  "the DRAM bytes each version moved, read and written, as Nsight Compute counted them: the "
                                  "L2 serves many of the re-reads the model counts."
                            : "run with --profile to see the DRAM bytes each version moved beside it.";
    return figure("03", bars_svg(bars, "MiB", true), caption, "traffic");
}

// Lab 03: the tiling progression in TFLOP/s, each version measured in this run, against cuBLAS and the BF16 peak.
std::string picture_03(const json& lab, const json& ceilings) {
    const json& v1 = details_of(check_of(lab, "perf.v1_speedup"));
    const json& v2 = details_of(check_of(lab, "perf.v2_speedup"));
    const json& v3 = details_of(check_of(lab, "perf.v3_cublas_fraction"));
    if (!v1.contains("tflops") && !v2.contains("tflops") && !v3.contains("tflops")) return "";
    std::vector<Bar> bars = {{"naive (given)", number(v1.contains("naive_tflops") ? v1 : v2, "naive_tflops"), "#9aa5b1"},
                             {"v1: shared-memory tiles", number(v1, "tflops"), "#3d7dd8"},
                             {"v2: register tiles", number(v2, "tflops"), "#3d7dd8"},
                             {"v3: tensor cores", number(v3, "tflops"), "#3d7dd8"}};
    // Part v4 only where it was timed (a Hopper GPU): its own row, and its own cuBLAS timing's beside v3's.
    const json& v4 = details_of(check_of(lab, "perf.v4_cublas_fraction"));
    const bool hopper = v4.contains("tflops");
    if (hopper) bars.push_back({"v4: TMA + wgmma (Hopper)", number(v4, "tflops"), "#2a9d8f"});
    bars.push_back({"cuBLAS", number(v3, "cuBLAS_tflops", number(v4, "cuBLAS_tflops")), "#666"});
    const double peak = number(ceilings, "bf16_gemm_tflops");
    return traffic_figure(lab) + figure("03", bars_svg(bars, "TFLOP/s", true, peak, "BF16 peak (this run)"),
                  "Each version of the GEMM in TFLOP/s, measured in this run at the graded shape (log scale), against cuBLAS and "
                  "the BF16 peak of this run's ceilings. Each step reuses more of what it loads (above: the traffic)." +
                      std::string(hopper ? " v4 moves its tiles with TMA and multiplies with a warpgroup at a time: the Hopper path." : ""));
}

// Lab 05: peak device memory of each path, measured by the observer against the model's, and its kernels.
std::string picture_05(const json& lab) {
    const json& a = details_of(check_of(lab, "memory.silu_mul"));
    const json& b = details_of(check_of(lab, "memory.all_fused"));
    if (!a.contains("observed_peak_bytes") && !b.contains("observed_peak_bytes")) return "";
    const double MiB = 1024.0 * 1024.0;
    const auto kernels = [&](const char* id) { return number(details_of(check_of(lab, id)), "kernels"); };
    // The student's own paths only: the model's peaks, and the given separate chain's (the model's too), answer the
    // lab's questions.
    std::vector<Bar> bars = {{"(a) SiLU⊙U, quantize", number(a, "observed_peak_bytes") / MiB, "#3d7dd8"},
                             {"(b) all fused", number(b, "observed_peak_bytes") / MiB, "#2a9d8f"}};
    return figure("05", bars_svg(bars, "MiB", false),
                  "Peak device memory of each path at M = 1024, as the observer counted the allocations (inputs, outputs and "
                  "intermediates); (a) ran in " + fmt(kernels("launches.silu_mul"), 1) + " kernels, (b) in " +
                      fmt(kernels("launches.all_fused"), 1) + ". With --profile, the DRAM bytes each path moved are below.");
}

// Lab 07: the online softmax's running maximum m and sum ℓ along one row, tile by tile, from the graded inputs in
// FP64, ending at the row's LSE — FP64's and your kernel's.
std::string online_figure(const json& lab) {
    const json& st = details_of(check_of(lab, "correct.attention_small")).value("online_state", json::object());
    if (!st.contains("m") || !st["m"].is_array() || st["m"].empty()) return "";
    const json &m = st["m"], &ell = st.value("l", json::array()), &rescale = st.value("rescale", json::array());
    const std::size_t n = m.size();
    const auto numbers = [n](const json& a) {
        return a.is_array() && a.size() == n && std::all_of(a.begin(), a.end(), [](const json& v) { return v.is_number(); });
    };
    if (!numbers(m) || !numbers(ell)) return "";
    double mlo = INFINITY, mhi = -INFINITY, lhi = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mlo = std::min(mlo, m[i].get<double>()), mhi = std::max(mhi, m[i].get<double>());
        lhi = std::max(lhi, ell[i].get<double>());
    }
    if (!(mhi > mlo)) mhi = mlo + 1;
    const double w = 560, h = 200, l = 56, r = 60, t = 14, b = 36;
    const auto X = [&](std::size_t i) { return l + (w - l - r) * (static_cast<double>(i) + 0.5) / static_cast<double>(n); };
    const auto Ym = [&](double v) { return t + (h - t - b) * (1 - (v - mlo) / (mhi - mlo) * 0.9 - 0.05); };
    const auto Yl = [&](double v) { return t + (h - t - b) * (1 - v / (lhi * 1.1)); };
    std::ostringstream s;
    s << "<svg class=\"online\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\"><rect x=\"" << l
      << "\" y=\"" << t << "\" width=\"" << w - l - r << "\" height=\"" << h - t - b << "\" fill=\"#fff\" stroke=\"#ccd\"/>";
    for (std::size_t i = 0; i < n; ++i) {
        const double bw = (w - l - r) / static_cast<double>(n) * 0.6;
        s << "<rect x=\"" << px(X(i) - bw / 2) << "\" y=\"" << px(Yl(ell[i].get<double>())) << "\" width=\"" << px(bw) << "\" height=\""
          << px(Yl(0) - Yl(ell[i].get<double>())) << "\" fill=\"#9ec5e8\"><title>after tile " << i + 1 << ": ℓ = " << fmt(ell[i].get<double>())
          << "</title></rect>";
        if (rescale.is_array() && i < rescale.size() && rescale[i].is_number() && rescale[i].get<double>() < 0.999 && i > 0)
            s << "<text x=\"" << px(X(i)) << "\" y=\"" << px(Yl(ell[i].get<double>()) - 4) << "\" text-anchor=\"middle\" fill=\"#555\">×"
              << fmt(rescale[i].get<double>(), 2) << "</text>";
        s << "<text x=\"" << px(X(i)) << "\" y=\"" << h - b + 14 << "\" text-anchor=\"middle\">" << i + 1 << "</text>";
    }
    s << "<polyline fill=\"none\" stroke=\"#c33\" stroke-width=\"2\" points=\"";
    for (std::size_t i = 0; i < n; ++i) s << px(X(i)) << "," << px(Ym(m[i].get<double>())) << " ";
    s << "\"/>";
    for (std::size_t i = 0; i < n; ++i)
        s << "<circle cx=\"" << px(X(i)) << "\" cy=\"" << px(Ym(m[i].get<double>())) << "\" r=\"3\" fill=\"#c33\"><title>after tile " << i + 1
          << ": m = " << fmt(m[i].get<double>()) << "</title></circle>";
    s << "<text x=\"" << l - 4 << "\" y=\"" << px(Ym(mhi)) << "\" text-anchor=\"end\" fill=\"#c33\">m " << fmt(mhi) << "</text><text x=\""
      << l - 4 << "\" y=\"" << px(Ym(mlo)) << "\" text-anchor=\"end\" fill=\"#c33\">" << fmt(mlo) << "</text><text x=\"" << w - r + 4
      << "\" y=\"" << px(Yl(lhi)) << "\" fill=\"#3d7dd8\">ℓ " << fmt(lhi) << "</text><text x=\"" << (l + w - r) / 2 << "\" y=\"" << h - 6
      << "\" text-anchor=\"middle\">tile of " << fmt(number(st, "keys_per_tile", 64), 1) << " keys</text></svg>";
    return figure("07", s.str(),
                  "The online softmax along one row (head " + fmt(number(st, "head", 0), 1) + ", row " + fmt(number(st, "row", 0), 1) +
                      " of a causal case, " + fmt(number(st, "keys", 0), 1) + " keys), tile by tile, in FP64 from this run's inputs: "
                      "the running maximum m of the scaled scores (red) and the sum ℓ of exponentials relative to it (bars); "
                      "when m rises, everything so far is rescaled by e^(m_old − m) (the × factors). At the end LSE = m + ln ℓ = " +
                      fmt(number(st, "lse_fp64"), 7) + "; your kernel wrote " + fmt(number(st, "lse_yours"), 7) + ".",
                  "online");
}

// Lab 07: the memory the attention forward needs beyond its inputs and output, against the MATH path's scores.
std::string picture_07(const json& lab) {
    const json& m = details_of(check_of(lab, "memory.extra"));
    const json& t = details_of(check_of(lab, "perf.attention_cublas"));
    if (!m.contains("naive_peak_bytes")) return "";
    const double MiB = 1024.0 * 1024.0;
    const double yours = (number(m, "workspace_peak_bytes", 0) + number(m, "allocated_during_call_bytes", 0)) / MiB;
    std::vector<Bar> bars = {{"MATH path (scores kept)", number(m, "naive_peak_bytes") / MiB, "#9aa5b1"},
                             {"your forward pass", std::max(yours, 1e-3), "#3d7dd8"}};
    std::string caption = "Extra device memory at one head, L 8192, log scale: the MATH path keeps the L × L scores, an online "
                          "softmax keeps a running maximum and sum per row instead (" + pts(yours) + " MiB measured; the limit is 16 MiB).";
    if (t.contains("tflops"))
        caption += " At B 1, H 32, L 8192 it ran at " + fmt(number(t, "tflops")) + " TFLOP/s, " + fmt(100 * number(t, "ratio"), 2) +
                   "% of cuBLAS's BF16 GEMM (" + fmt(number(t, "cublas_tflops")) + " TFLOP/s) in this run.";
    const json& c = details_of(check_of(lab, "perf.hopper_cublas"));
    const json& cf = details_of(check_of(lab, "perf.hopper_cublas_full"));
    if (c.contains("tflops"))
        caption += " Part (c), on the Hopper path, ran it at " + fmt(number(c, "tflops")) + " TFLOP/s (" + fmt(100 * number(c, "ratio"), 2) +
                   "% of cuBLAS)" + (cf.contains("tflops") ? ", and " + fmt(number(cf, "tflops")) + " TFLOP/s not causal" : std::string()) + ".";
    return figure("07", bars_svg(bars, "MiB", true, 16, "16 MiB limit"), caption) + online_figure(lab);
}

std::string lab_picture(const json& lab, const json& ceilings) {
    const std::string id = text(lab, "id");
    if (id == "01") return picture_01(lab);
    if (id == "02") return picture_02(lab, ceilings);
    if (id == "03") return picture_03(lab, ceilings);
    if (id == "04") return picture_04(lab);
    if (id == "05") return picture_05(lab);
    if (id == "07") return picture_07(lab);
    if (id == "06") return picture_06(lab);
    if (id == "08") return picture_08(lab);
    if (id == "09") return picture_09(lab);
    return "";
}

// With --profile: what Nsight Compute read of the lab's profile targets, per kernel, in the lab's words.
std::string evidence_html(const json& lab) {
    if (!lab.contains("profile") || !lab["profile"].is_array() || lab["profile"].empty()) return "";
    std::ostringstream s;
    s << "<div class=\"evidence-all\"><h3>Evidence from Nsight Compute</h3>";
    for (const json& e : lab["profile"]) {
        s << "<div class=\"evidence\" id=\"evidence-" << esc(text(lab, "id")) << "-" << esc(text(e, "target")) << "\"><p><b>"
          << esc(text(e, "target")) << "</b>: " << esc(text(e, "idea"));
        if (e.contains("seconds") && e["seconds"].is_number()) s << " <span class=\"hint\">(" << fmt(e["seconds"].get<double>(), 2) << " s)</span>";
        s << "</p>";
        const std::string skipped = text(e, "skipped");
        const json& kernels = e.value("kernels", json::array());
        if (!skipped.empty() || kernels.empty()) {
            s << "<p class=\"why\">Not read: " << esc(skipped.empty() ? std::string("the target launched no kernel") : skipped) << ".</p></div>";
            continue;
        }
        const json& metrics = e.value("metrics", json::array());
        s << "<table class=\"counters\"><tr><th>kernel</th>";
        for (const json& m : metrics)
            s << "<th class=\"num\" title=\"" << esc(text(m, "metric")) << (text(m, "per").empty() ? "" : " / " + esc(text(m, "per"))) << "\">"
              << esc(text(m, "label")) << "</th>";
        s << "</tr>";
        for (const json& k : kernels) {
            s << "<tr><td><code>" << esc(text(k, "name")) << "</code></td>";
            const json& values = k.value("metrics", json::object());
            for (const json& m : metrics) {
                double v = number(values, text(m, "metric").c_str());
                if (!text(m, "per").empty()) {
                    const double per = number(values, text(m, "per").c_str());
                    v = per > 0 ? v / per : NAN;
                }
                s << "<td class=\"num\">" << fmt(v) << "</td>";
            }
            s << "</tr>";
        }
        s << "</table>";
        if (const double left = number(e, "course_kernels_left_out", 0); left > 0)
            s << "<p class=\"hint\">Not shown: " << fmt(left, 1) << " launches of the course's own kernels (fresh inputs drawn between yours).</p>";
        s << "</div>";
    }
    s << "</div>";
    return s.str();
}

// ---------------------------------------------------------------- a student's page

std::string checks_table(const json& lab, const json& ceilings, const json& reference) {
    std::ostringstream s;
    s << "<table class=\"checks\"><tr><th>check</th><th>status</th><th class=\"num\">points</th><th>measured</th>"
         "<th>target</th><th>message</th></tr>";
    std::string figures;
    for (const json& c : lab.value("checks", json::array())) {
        const std::string status = text(c, "status");
        s << "<tr class=\"check\" data-status=\"" << esc(status) << "\" id=\"check-" << esc(text(lab, "id")) << "-"
          << esc(text(c, "id")) << "\"><td><code>" << esc(text(c, "id")) << "</code>"
          << (text(c, "title") == text(c, "id") ? "" : "<br><span class=\"hint\">" + esc(text(c, "title")) + "</span>") << "</td><td>" << status_badge(status) << "</td><td class=\"num\">"
          << pts(number(c, "points", 0)) << " / " << pts(number(c, "max_points", 0)) << "</td><td>" << esc(text(c, "measured"))
          << "</td><td>" << esc(text(c, "target")) << "</td><td>" << esc(text(c, "message"));
        if (!text(c, "hint").empty()) s << "<br><span class=\"hint\">hint: " << esc(text(c, "hint")) << "</span>";
        s << "</td></tr>";
        if (text(c, "kind") == "performance")
            figures += "<div class=\"perf\" id=\"perf-" + esc(text(lab, "id")) + "-" + esc(text(c, "id")) + "\"><h3>" +
                       esc(text(c, "id")) + " — " + esc(text(c, "title")) + "</h3>" +
                       drawn([&] { return perf_figures(c, ceilings, text(lab, "id"), reference); }, "This check's pictures") + "</div>";
    }
    s << "</table>" << figures;
    return s.str();
}

std::string ceilings_card(const json& c) {
    if (!c.is_object()) return "<section class=\"card\" id=\"ceilings\"><h2>Ceilings</h2><p class=\"why\">Not measured in this run.</p></section>";
    const std::vector<std::tuple<const char*, const char*, const char*>> rows = {
        {"d2d_copy_gbps", "device copy", "GB/s"},          {"bf16_gemm_tflops", "BF16 tensor (cuBLAS GEMM)", "TFLOP/s"},
        {"fp32_fma_tflops", "FP32 FMA", "TFLOP/s"},        {"h2d_pinned_gbps", "host → device, pinned", "GB/s"},
        {"d2h_pinned_gbps", "device → host, pinned", "GB/s"}, {"launch_submit_us", "launch, host submit", "µs"},
        {"launch_device_us", "launch, on the device", "µs"}, {"graph_node_us", "graph node", "µs"},
        {"dram_latency_ns", "DRAM latency", "ns"},          {"l2_latency_ns", "L2 latency", "ns"}};
    std::ostringstream s;
    s << "<section class=\"card\" id=\"ceilings\"><h2>Ceilings measured in this run</h2><div class=\"kv\">";
    for (const auto& [key, name, unit] : rows)
        if (c.contains(key) && c[key].is_number()) s << "<span>" << name << "</span><span>" << fmt(c[key].get<double>()) << " " << unit << "</span>";
    s << "</div></section>";
    return s.str();
}

}  // namespace

std::pair<double, double> ratio_interval(const json& check) {
    const json& d = check.value("details", json::object());
    const double ratio = number(d, "ratio");
    if (!std::isfinite(ratio)) return {0, 0};
    double rel = 0;
    int n = 0;
    for (const Timing& t : timings_of(d))
        if (t.name.rfind("baseline alone", 0) != 0 && std::isfinite(t.rel_ci)) rel += t.rel_ci, ++n;
    if (n == 0) rel = 0.02;
    return {ratio * (1 - rel), ratio * (1 + rel)};
}

json reference_ratios(const json& gradebook, const json& report) {
    json out = json::object();
    const std::string fp = batch_detail::gpu_of(report).second;
    if (fp == "none") return out;
    for (const json& c : gradebook.value("calibration", json::array())) {
        if (text(c, "gpu_fingerprint") != fp || text(c, "outcome") != "graded") continue;
        for (const json& k : c.value("checks", json::array()))
            if (k.contains("ratio") && k["ratio"].is_number()) out[text(k, "lab") + "/" + text(k, "id")] = k["ratio"];
        break;
    }
    return out;
}

std::string report_html(const json& report, const std::string& source, const json& reference) {
    std::ostringstream b;
    const json& totals = report.value("totals", json::object());
    const std::string who = report.contains("student") && report["student"].is_object() ? text(report["student"], "id") : "";
    b << "<header id=\"summary\"><h1>Grader report" << (who.empty() ? "" : ": " + esc(who)) << "</h1><div class=\"sub\">"
      << esc(text(report, "implementation")) << " · seed " << report.value("seed", 0) << " · " << esc(text(report, "started_at"))
      << " · " << esc(source) << "</div>";
    b << "<p><b>" << pts(number(totals, "points", 0)) << " / " << pts(number(totals, "max_points", 0)) << " points</b>";
    if (number(totals, "pending_points", 0) > 0) b << " · " << fmt(number(totals, "pending_points", 0)) << " pending a GPU";
    b << "</p>";
    const json& fp = report.value("fingerprint", json());
    if (fp.is_object() && fp.contains("device"))
        b << "<p class=\"sub\" id=\"gpu\">GPU: " << esc(text(fp["device"], "name")) << " (sm_"
          << esc([&] { std::string cc = text(fp["device"], "compute_capability"); cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end()); return cc; }())
          << ", " << fp["device"].value("sm_count", 0) << " SMs), driver " << esc(text(fp, "driver_version")) << "</p>";
    else
        b << "<p class=\"sub\" id=\"gpu\">No GPU: " << esc(text(report, "no_gpu_reason")) << "</p>";
    b << "</header>\n";
    // At a glance: each lab's points as a bar, then where points were lost, most first, each linked to its row.
    struct Lost {
        double points;
        std::string lab, id, title, status;
    };
    std::vector<Lost> lost;
    b << "<section class=\"card\" id=\"overview\"><h2>At a glance</h2><table class=\"overview\"><tr><th>lab</th>"
         "<th class=\"num\">points</th><th></th><th>checks</th></tr>";
    for (const json& lab : report.value("labs", json::array())) {
        const double p = number(lab, "points", 0), m = number(lab, "max_points", 0), pending = number(lab, "pending_points", 0);
        std::map<std::string, int> by_status;
        for (const json& c : lab.value("checks", json::array())) {
            ++by_status[text(c, "status")];
            const double gone = number(c, "max_points", 0) - number(c, "points", 0);
            if (gone > 1e-9 && text(c, "status") != "skipped")
                lost.push_back({gone, text(lab, "id"), text(c, "id"), text(c, "title"), text(c, "status")});
        }
        const double w = 160;
        b << "<tr class=\"lab-row\"><td><a href=\"#lab-" << esc(text(lab, "id")) << "\">" << esc(text(lab, "id")) << "</a> "
          << esc(text(lab, "title")) << "</td><td class=\"num\">" << pts(p) << " / " << pts(m) << "</td><td><svg width=\"" << w
          << "\" height=\"12\"><rect width=\"" << w << "\" height=\"12\" fill=\"#e6e9ed\"/><rect width=\""
          << px(m > 0 ? w * p / m : 0) << "\" height=\"12\" fill=\"#4a4\"/><rect x=\"" << px(m > 0 ? w * p / m : 0)
          << "\" width=\"" << px(m > 0 ? w * pending / m : 0) << "\" height=\"12\" fill=\"#c8ced6\"><title>" << pts(pending)
          << " points pending a GPU</title></rect></svg></td><td>";
        for (const auto& [status, n] : by_status) b << status_badge(status) << " " << n << " ";
        b << "</td></tr>";
    }
    b << "</table>";
    std::stable_sort(lost.begin(), lost.end(), [](const Lost& x, const Lost& y) { return x.points > y.points; });
    if (lost.empty()) {
        b << "<p class=\"hint\">No points lost in what ran.</p>";
    } else {
        constexpr std::size_t kShown = 12;
        b << "<h3>Where the points went</h3><ol class=\"lost\">";
        for (std::size_t i = 0; i < lost.size() && i < kShown; ++i)
            b << "<li><a href=\"#check-" << esc(lost[i].lab) << "-" << esc(lost[i].id) << "\">lab " << esc(lost[i].lab) << " <code>"
              << esc(lost[i].id) << "</code></a> " << status_badge(lost[i].status) << " −" << pts(lost[i].points)
              << (lost[i].title == lost[i].id ? "" : " <span class=\"hint\">" + esc(lost[i].title) + "</span>") << "</li>";
        b << "</ol>";
        if (lost.size() > kShown) b << "<p class=\"hint\">… and " << lost.size() - kShown << " more checks short of full marks.</p>";
    }
    b << "</section>\n";
    const json& ceilings = report.value("ceilings", json());
    b << ceilings_card(ceilings);
    bool profiled = false;
    for (const json& lab : report.value("labs", json::array())) profiled = profiled || lab.contains("profile");
    if (fp.is_object() && !profiled)
        b << "<p class=\"hint\" id=\"profile-hint\">Run with <code>--profile</code> to add each lab's evidence from Nsight "
             "Compute (bank conflicts, occupancy, stall reasons, DRAM bytes, tensor-pipe use).</p>";
    for (const json& lab : report.value("labs", json::array())) {
        b << "<section class=\"lab\" id=\"lab-" << esc(text(lab, "id")) << "\"><h2>Lab " << esc(text(lab, "id")) << " — "
          << esc(text(lab, "title")) << "</h2><p><b>" << pts(number(lab, "points", 0)) << " / "
          << pts(number(lab, "max_points", 0)) << "</b> points";
        if (number(lab, "pending_points", 0) > 0) b << " · " << fmt(number(lab, "pending_points", 0)) << " pending a GPU";
        b << " · " << fmt(number(lab, "seconds", 0)) << " s</p>";
        for (const json& f : lab.value("failures", json::array())) b << "<p class=\"st-fail\">" << esc(f.get<std::string>()) << "</p>";
        for (const json& f : lab.value("warnings", json::array())) b << "<p class=\"hint\">warning: " << esc(f.get<std::string>()) << "</p>";
        b << drawn([&] { return lab_picture(lab, ceilings); }, "The lab's pictures") << checks_table(lab, ceilings, reference)
          << drawn([&] { return evidence_html(lab); }, "The profiler's evidence") << "</section>\n";
    }
    return page("Grader report" + (who.empty() ? "" : ": " + who), b.str());
}

// ---------------------------------------------------------------- the class page

namespace {

struct Entry {
    std::string student;
    double points = 0, max_points = 0;
    std::string status;
    double ratio = NAN, lo = NAN, hi = NAN;
    double pass_bar = NAN, full_bar = NAN;
};

// Each student's ratio as a dot (its interval a line) on one axis, with the check's pass and full bars.
std::string ratios_svg(const std::vector<Entry>& es, const std::vector<std::pair<std::string, double>>& references) {
    double top = 0, pass = NAN, full = NAN;
    for (const auto& [gpu, r] : references) top = std::max(top, r);
    for (const Entry& e : es) {
        top = std::max({top, e.hi, std::isfinite(e.full_bar) ? e.full_bar : 0.0});
        if (std::isfinite(e.pass_bar)) pass = e.pass_bar;
        if (std::isfinite(e.full_bar)) full = e.full_bar;
    }
    if (!(top > 0)) return "";
    top *= 1.1;
    const double w = 520, h = 58, l = 10, r = 10;
    const auto X = [&](double v) { return l + (w - l - r) * v / top; };
    std::ostringstream s;
    s << "<svg class=\"ratios\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h << "\">";
    s << "<line x1=\"" << l << "\" x2=\"" << w - r << "\" y1=\"40\" y2=\"40\" stroke=\"#999\"/>";
    for (const auto& [v, name, colour] : {std::tuple{pass, "pass", "#c90"}, std::tuple{full, "full", "#4a4"}})
        if (std::isfinite(v))
            s << "<line x1=\"" << px(X(v)) << "\" x2=\"" << px(X(v)) << "\" y1=\"4\" y2=\"44\" stroke=\"" << colour
              << "\" stroke-dasharray=\"3 2\"/><text x=\"" << px(X(v) + 2) << "\" y=\"12\">" << name << " " << fmt(v) << "</text>";
    for (const auto& [gpu, r] : references)  // the reference solution on each GPU the class was graded on
        s << "<path class=\"ref-mark\" d=\"M" << px(X(r)) << ",36 l5,5 l-5,5 l-5,-5 z\" fill=\"#2a9d8f\"><title>the reference solution on "
          << esc(gpu) << ": " << fmt(r) << "</title></path>";
    for (std::size_t i = 0; i < es.size(); ++i) {
        const double y = 20 + 14 * static_cast<double>(i % 2);
        s << "<line x1=\"" << px(X(es[i].lo)) << "\" x2=\"" << px(X(es[i].hi)) << "\" y1=\"" << y << "\" y2=\"" << y
          << "\" stroke=\"#3d7dd8\" stroke-width=\"2\"/><circle cx=\"" << px(X(es[i].ratio)) << "\" cy=\"" << y
          << "\" r=\"3\" fill=\"#3d7dd8\"><title>" << esc(es[i].student) << ": " << fmt(es[i].ratio) << " (" << fmt(es[i].lo)
          << " – " << fmt(es[i].hi) << ")</title></circle>";
    }
    s << "<text x=\"" << l << "\" y=\"54\">0</text><text x=\"" << w - r << "\" y=\"54\" text-anchor=\"end\">" << fmt(top)
      << "</text></svg>";
    return s.str();
}

std::string histogram_svg(const std::vector<double>& values, double max_value) {
    constexpr int kBins = 5;
    std::vector<int> bins(kBins + 1, 0);  // 0 points, then five slices of (0, max]
    for (const double v : values) {
        if (v <= 0 || max_value <= 0) ++bins[0];
        else ++bins[std::min(kBins, 1 + static_cast<int>((v / max_value) * kBins - 1e-9))];
    }
    const int top = *std::max_element(bins.begin(), bins.end());
    const double w = 180, h = 30, bw = w / (kBins + 1);
    std::ostringstream s;
    s << "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h + 12 << "\">";
    for (int i = 0; i <= kBins; ++i) {
        const double bh = top ? (h - 4) * bins[i] / top : 0;
        const std::string range = i == 0 ? "0 points" : fmt(max_value * (i - 1) / kBins) + "–" + fmt(max_value * i / kBins);
        s << "<rect x=\"" << px(i * bw + 1) << "\" y=\"" << px(h - bh) << "\" width=\"" << px(bw - 2) << "\" height=\"" << px(bh)
          << "\" fill=\"" << (i == 0 ? "#d66" : i == kBins ? "#4a4" : "#7a9cc6") << "\"><title>" << range << ": " << bins[i]
          << (bins[i] == 1 ? " student" : " students") << "</title></rect>";
    }
    s << "<text x=\"0\" y=\"" << h + 11 << "\">0</text><text x=\"" << w << "\" y=\"" << h + 11 << "\" text-anchor=\"end\">"
      << fmt(max_value) << "</text></svg>";
    return s.str();
}

// Ranks that respect noise: a student's rank is 1 + the number of students whose whole interval lies above theirs.
std::vector<int> overlap_ranks(const std::vector<Entry>& e) {
    std::vector<int> rank(e.size(), 1);
    for (std::size_t i = 0; i < e.size(); ++i)
        for (std::size_t j = 0; j < e.size(); ++j)
            if (i != j && std::isfinite(e[i].hi) && std::isfinite(e[j].lo) && e[j].lo > e[i].hi) ++rank[i];
    return rank;
}

std::string html_link_of(const std::string& report_rel) {
    std::string h = report_rel;
    if (h.size() > 5 && h.substr(h.size() - 5) == ".json") h = h.substr(0, h.size() - 5) + ".html";
    return h;
}

}  // namespace

std::string class_html(const json& g, const std::string& gradebook_dir) {
    namespace fs = std::filesystem;
    const json& students = g.value("students", json::array());
    // lab -> check id -> (title, kind, entries); in the reports' order.
    std::map<std::string, std::vector<std::string>> order;
    std::map<std::string, std::map<std::string, std::pair<std::string, std::string>>> meta;
    std::map<std::string, std::map<std::string, std::vector<Entry>>> per_check;
    std::vector<std::string> unreadable;
    std::set<std::string> page_exists;
    for (const json& row : students) {
        const std::string who = text(row, "student");
        if (!row.contains("report") || !row["report"].is_string()) continue;
        const fs::path rp = fs::path(gradebook_dir) / row["report"].get<std::string>();
        const auto report = batch_detail::read_json(rp);
        if (!report) {
            unreadable.push_back(who + " (" + rp.string() + ")");
            continue;
        }
        std::error_code ec;
        if (fs::exists(fs::path(gradebook_dir) / html_link_of(row["report"].get<std::string>()), ec)) page_exists.insert(who);
        if (!report->is_object() || !report->value("labs", json::object()).is_array()) {
            unreadable.push_back(who + " (" + rp.string() + ": not a report)");
            continue;
        }
        for (const json& lab : (*report)["labs"]) {
            if (!lab.is_object() || !lab.value("checks", json::array()).is_array()) continue;
            const std::string lid = text(lab, "id");
            for (const json& c : lab.value("checks", json::array())) {
                const std::string cid = text(c, "id");
                if (!meta[lid].count(cid)) {
                    meta[lid][cid] = {text(c, "title"), text(c, "kind")};
                    order[lid].push_back(cid);
                }
                Entry e{who, number(c, "points", 0), number(c, "max_points", 0), text(c, "status")};
                if (text(c, "kind") == "performance" && c.contains("details") && c["details"].contains("ratio") &&
                    (e.status == "pass" || e.status == "partial" || e.status == "fail")) {
                    e.ratio = number(c["details"], "ratio");
                    e.pass_bar = number(c["details"], "pass_bar");
                    e.full_bar = number(c["details"], "full_bar");
                    const auto [lo, hi] = ratio_interval(c);
                    e.lo = lo, e.hi = hi;
                }
                per_check[lid][cid].push_back(e);
            }
        }
    }
    std::ostringstream b;
    b << "<header id=\"summary\"><h1>Class gradebook</h1><div class=\"sub\">" << students.size() << " submissions · seed "
      << g.value("seed", 0) << " · " << esc(text(g, "created_at")) << " · grader " << esc(text(g, "grader_version")) << "</div>";
    if (!unreadable.empty()) {
        b << "<p class=\"why\" id=\"unreadable\">Reports that could not be read (their students count by lab points only): ";
        for (const std::string& u : unreadable) b << esc(u) << "; ";
        b << "</p>";
    }
    b << "</header>";
    // The roster: each student's points per lab, total, flags, and a link to their page.
    const json& labs = g.value("labs", json::array());
    b << "<section class=\"card\" id=\"roster\"><h2>Students</h2><table><tr><th>student</th>";
    for (const json& l : labs) b << "<th class=\"num\">" << esc(text(l, "id")) << "</th>";
    b << "<th class=\"num\">total</th><th>flags</th></tr>";
    for (const json& row : students) {
        const std::string who = text(row, "student");
        b << "<tr class=\"student\"><td>";
        if (page_exists.count(who)) b << "<a href=\"" << esc(html_link_of(row["report"].get<std::string>())) << "\">" << esc(who) << "</a>";
        else b << esc(who);
        b << "</td>";
        for (const json& l : labs) {
            const json& cell = row.value("labs", json::object()).value(text(l, "id"), json::object());
            b << "<td class=\"num\">" << pts(number(cell, "points", 0)) << "</td>";
        }
        b << "<td class=\"num\"><b>" << pts(number(row, "total_points", 0)) << "</b> / " << pts(number(row, "max_points", 0))
          << "</td><td>";
        for (const json& f : row.value("flags", json::array())) b << "<span class=\"flag\">" << esc(f.get<std::string>()) << "</span>";
        b << "</td></tr>";
    }
    b << "</table></section>";
    // Flags with their reasons.
    b << "<section class=\"card\" id=\"flags\"><h2>Flags</h2>";
    bool any_flag = false;
    for (const json& row : students)
        for (const json& d : row.value("flag_details", json::array())) {
            if (!any_flag) b << "<table><tr><th>student</th><th>flag</th><th>lab</th><th>why</th></tr>";
            any_flag = true;
            b << "<tr><td>" << esc(text(row, "student")) << "</td><td><span class=\"flag\">" << esc(text(d, "flag")) << "</span></td><td>"
              << esc(text(d, "lab")) << "</td><td>" << esc(text(d, "why")) << "</td></tr>";
        }
    b << (any_flag ? "</table>" : "<p class=\"why\">No student is flagged.</p>");
    const json& sim = g.value("similarity", json::object());
    if (sim.is_object() && !sim.value("ran", false))
        b << "<p class=\"why\">Copying was not compared: " << esc(text(sim, "why_not")) << ".</p>";
    b << "</section>";
    // Calibration per GPU: the solutions' ratios on each GPU the class was graded on.
    std::map<std::string, std::vector<std::pair<std::string, double>>> reference;  // "lab/check" -> (gpu, ratio)
    const json& calibration = g.value("calibration", json::array());
    b << "<section class=\"card\" id=\"calibration\"><h2>Calibration per GPU</h2>";
    if (calibration.empty()) b << "<p class=\"why\">None: graded without --calibrate, so no reference ratio per GPU.</p>";
    for (const json& c : calibration) {
        const std::string gpu = c.contains("gpu") && c["gpu"].is_object() ? text(c["gpu"], "name") : "no GPU";
        b << "<h3>" << esc(text(c, "host")) << " · " << esc(gpu) << " (" << esc(text(c, "cuda_visible_devices")) << ")</h3><table><tr><th>check</th>"
          << "<th>status</th><th class=\"num\">ratio</th><th class=\"num\">pass / full</th></tr>";
        for (const json& k : c.value("checks", json::array())) {
            const double r = number(k, "ratio");
            if (std::isfinite(r)) reference[text(k, "lab") + "/" + text(k, "id")].push_back({gpu, r});
            b << "<tr><td>" << esc(text(k, "lab")) << " <code>" << esc(text(k, "id")) << "</code></td><td>" << status_badge(text(k, "status"))
              << "</td><td class=\"num\">" << fmt(r) << "</td><td class=\"num\">" << fmt(number(k, "pass_bar")) << " / "
              << fmt(number(k, "full_bar")) << "</td></tr>";
        }
        b << "</table>";
    }
    b << "</section>";
    // Per lab and check: the points' distribution; per performance check, the ratios ranked with their intervals.
    for (const json& l : labs) {
        const std::string lid = text(l, "id");
        b << "<section class=\"lab\" id=\"lab-" << esc(lid) << "\"><h2>Lab " << esc(lid) << " — " << esc(text(l, "title")) << "</h2>";
        if (!order.count(lid)) {
            b << "<p class=\"why\">No report of this lab could be read.</p></section>";
            continue;
        }
        b << "<table><tr><th>check</th><th>points (0, then five slices of the maximum)</th><th class=\"num\">mean</th>"
             "<th class=\"num\">full</th></tr>";
        for (const std::string& cid : order[lid]) {
            const std::vector<Entry>& es = per_check[lid][cid];
            std::vector<double> points;
            double max_p = 0, sum = 0;
            int full = 0;
            for (const Entry& e : es) {
                points.push_back(e.points), sum += e.points, max_p = std::max(max_p, e.max_points);
                if (e.max_points > 0 && e.points >= e.max_points - 1e-9) ++full;
            }
            b << "<tr class=\"dist\"><td><code>" << esc(cid) << "</code>"
              << (meta[lid][cid].first == cid ? "" : "<br><span class=\"hint\">" + esc(meta[lid][cid].first) + "</span>") << "</td><td>" << histogram_svg(points, max_p) << "</td><td class=\"num\">" << pts(es.empty() ? 0 : sum / es.size())
              << " / " << pts(max_p) << "</td><td class=\"num\">" << full << " of " << es.size() << "</td></tr>";
        }
        b << "</table>";
        for (const std::string& cid : order[lid]) {
            if (meta[lid][cid].second != "performance") continue;
            std::vector<Entry> es;
            for (const Entry& e : per_check[lid][cid])
                if (std::isfinite(e.ratio)) es.push_back(e);
            b << "<div class=\"ranking\" id=\"rank-" << esc(lid) << "-" << esc(cid) << "\"><h3>" << esc(cid) << ": ratios ranked</h3>";
            if (es.empty()) {
                b << "<p class=\"why\">No ratio measured (no GPU, or the check did not run).</p></div>";
                continue;
            }
            std::sort(es.begin(), es.end(), [](const Entry& a, const Entry& c) { return a.ratio > c.ratio; });
            const std::vector<int> ranks = overlap_ranks(es);
            const auto ref = reference.find(lid + "/" + cid);
            b << ratios_svg(es, ref == reference.end() ? std::vector<std::pair<std::string, double>>{} : ref->second);
            b << "<table><tr><th class=\"num\">rank</th><th>student</th><th class=\"num\">ratio</th><th class=\"num\">interval</th>"
                 "<th>status</th></tr>";
            for (std::size_t i = 0; i < es.size(); ++i)
                b << "<tr class=\"ranked\"><td class=\"num\">" << ranks[i] << "</td><td>" << esc(es[i].student) << "</td><td class=\"num\">"
                  << fmt(es[i].ratio) << "</td><td class=\"num\">" << fmt(es[i].lo) << " – " << fmt(es[i].hi) << "</td><td>"
                  << status_badge(es[i].status) << "</td></tr>";
            b << "</table><p class=\"hint\">Students whose intervals overlap share a rank. The interval widens the ratio by the "
                 "timings' own confidence intervals (2% where the check records none).";
            if (ref != reference.end())
                for (const auto& [gpu, r] : ref->second) b << " Reference solution on " << esc(gpu) << ": " << fmt(r) << ".";
            b << "</p></div>";
        }
        b << "</section>";
    }
    return page("Class gradebook", b.str());
}

}  // namespace gpulab::grader
