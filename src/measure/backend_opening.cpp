#include "measure/backend_opening.hpp"

#include <charconv>
#include <limits>

#include "backends/registry.hpp"
#include "core/errors.hpp"

namespace readbench {

std::vector<std::string> backend_names(BackendChoice c, const std::vector<int>& devices) {
  const bool every = c == BackendChoice::all || c == BackendChoice::auto_;
  std::vector<std::string> out;
  for (const BackendKind& k : backend_kinds()) {
    if (!every && k.name != to_string(c)) continue;
    if (!k.device_count || devices.size() <= 1) {
      out.emplace_back(k.name);
    } else {
      for (int d : devices) out.push_back(std::string(k.name) + ":" + std::to_string(d));
    }
  }
  return out;
}

bool is_device_backend(const std::string& name) {
  return name.find(':') != std::string::npos;
}

int device_of(const std::string& name) {
  const std::size_t colon = name.find(':');
  return colon == std::string::npos ? 0 : std::stoi(name.substr(colon + 1));
}

BackendFactory default_backend_factory(int threads, const std::vector<int>& devices) {
  return [threads, devices](const std::string& name) -> std::unique_ptr<Backend> {
    const BackendKind* kind = find_backend_kind(name);
    if (!kind) throw InputError("no backend is named '" + name + "'");
    const int device = is_device_backend(name) ? device_of(name)
                       : devices.empty()       ? 0
                                               : devices.front();
    return kind->open(threads, device);
  };
}

std::vector<int> parse_devices(std::string_view text) {
  if (text == "all") return {};
  std::vector<int> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item =
        text.substr(pos, comma == std::string_view::npos ? comma : comma - pos);
    int d = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    // Canonical indices only: "01" or "-0" would name a device a second way.
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || d < 0 ||
        item != std::to_string(d))
      throw InputError("--device '" + std::string(text) +
                       "' is not all, a device index or an increasing list of them (0,1)");
    if (!out.empty() && d <= out.back())
      throw InputError("--device '" + std::string(text) + "': the indices must increase");
    out.push_back(d);
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

void check_device_applies(BackendChoice choice, bool device_given) {
  if (device_given && choice == BackendChoice::cpu)
    throw InputError("--device applies only to the cuda backend, not --backend cpu");
}

std::vector<int> resolve_devices(const std::vector<int>& devices) {
  if (!devices.empty()) return devices;
  std::vector<int> all;
  for (int d = 0; d < cuda_device_count(); ++d) all.push_back(d);
  if (all.empty()) all.push_back(0);
  return all;
}

void validate_backend_options(int threads, int device) {
  if (threads < 0) throw InputError("--threads must be >= 0, got " + std::to_string(threads));
  if (device < 0) throw InputError("--device must be >= 0, got " + std::to_string(device));
}

void for_each_backend(BackendChoice choice, const BackendFactory& open,
                      const std::function<bool(const std::string& name, Backend&)>& use,
                      const std::function<void(const std::string& name, Status status,
                                               const std::string& why)>& skipped) {
  for_each_backend(choice, backend_names(choice), open, use, skipped);
}

void for_each_backend(BackendChoice choice, const std::vector<std::string>& names,
                      const BackendFactory& open,
                      const std::function<bool(const std::string& name, Backend&)>& use,
                      const std::function<void(const std::string& name, Status status,
                                               const std::string& why)>& skipped) {
  const bool explicit_choice = choice == BackendChoice::cpu || choice == BackendChoice::cuda;
  for (const std::string& name : names) {
    auto skip = [&](Status status, const char* why) {
      if (explicit_choice)
        throw InputError((is_device_backend(name) ? "--device " + std::to_string(device_of(name))
                                                  : "--backend " + name) +
                         " cannot run: " + why);
      skipped(name, status, why);
    };
    try {
      const std::unique_ptr<Backend> backend = open(name);
      if (!use(name, *backend)) return;
    } catch (const OutputError&) {
      throw;  // stdout failed: no reason a backend cannot run
    } catch (const BackendUnavailable& e) {
      skip(Status::unavailable, e.what());
    } catch (const BackendError& e) {
      skip(Status::failed, e.what());
    } catch (const InputError& e) {
      skip(Status::failed, e.what());
    }
  }
}

}  // namespace readbench
