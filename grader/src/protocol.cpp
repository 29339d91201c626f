// JSON forms of protocol messages.
#include "grader/protocol.hpp"

namespace gpulab::grader {

CheckResult result_for(const CheckDecl& decl) {
    CheckResult r;
    r.id = decl.id;
    r.title = decl.title;
    r.kind = decl.kind;
    r.max_points = decl.max_points;
    return r;
}

void to_json(nlohmann::json& j, const CheckResult& r) {
    j = nlohmann::json{{"id", r.id},
                       {"title", r.title},
                       {"kind", std::string(to_string(r.kind))},
                       {"status", std::string(to_string(r.status))},
                       {"points", r.points},
                       {"max_points", r.max_points},
                       {"measured", r.measured},
                       {"target", r.target},
                       {"message", r.message},
                       {"hint", r.hint},
                       {"details", r.details.is_null() ? nlohmann::json::object() : r.details}};
}

void from_json(const nlohmann::json& j, CheckResult& r) {
    r.id = j.at("id").get<std::string>();
    r.title = j.value("title", r.id);
    r.kind = kind_from_string(j.at("kind").get<std::string>());
    r.status = status_from_string(j.at("status").get<std::string>());
    r.points = j.at("points").get<double>();
    r.max_points = j.at("max_points").get<double>();
    r.measured = j.value("measured", "");
    r.target = j.value("target", "");
    r.message = j.value("message", "");
    r.hint = j.value("hint", "");
    r.details = j.value("details", nlohmann::json::object());
}

void to_json(nlohmann::json& j, const CheckDecl& d) {
    j = nlohmann::json{{"id", d.id},
                       {"title", d.title},
                       {"kind", std::string(to_string(d.kind))},
                       {"max_points", d.max_points},
                       {"needs_gpu", d.needs_gpu}};
}

void from_json(const nlohmann::json& j, CheckDecl& d) {
    d.id = j.at("id").get<std::string>();
    d.title = j.value("title", d.id);
    d.kind = kind_from_string(j.at("kind").get<std::string>());
    d.max_points = j.at("max_points").get<double>();
    d.needs_gpu = j.value("needs_gpu", false);
}

void Emitter::send(const nlohmann::json& message) {
    const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fflush(out_);
}

}  // namespace gpulab::grader
