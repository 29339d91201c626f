// The text helpers the host code shares (labs/text.hpp).
#include "catch_compat.hpp"
#include "labs/text.hpp"

using gpulab::join;
using gpulab::split;
using gpulab::trim;

TEST_CASE("A list splits into its non-empty items, each trimmed", "[text]") {
    CHECK(split("a, b,,c ,") == std::vector<std::string>{"a", "b", "c"});
    CHECK(split("0;2;3", ';') == std::vector<std::string>{"0", "2", "3"});
    CHECK(split("").empty());
    CHECK(split(" , ,").empty());
    CHECK(split("correct.*") == std::vector<std::string>{"correct.*"});
}

TEST_CASE("Items join with the separator between them only", "[text]") {
    CHECK(join({"0", "2", "3"}) == "0,2,3");
    CHECK(join({"a", "", "b"}, " | ") == "a |  | b");
    CHECK(join({}).empty());
    CHECK(join(split("x,y, z")) == "x,y,z");
}

TEST_CASE("Trimming takes spaces and tabs off both ends, and nothing else", "[text]") {
    CHECK(trim("  a b\t") == "a b");
    CHECK(trim(" \t ").empty());
    CHECK(trim("\na\n") == "\na\n");
}
