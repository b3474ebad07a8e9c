#include "report/json_text.hpp"

#include <nlohmann/json.hpp>

namespace readbench {

std::string json_text(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace readbench
