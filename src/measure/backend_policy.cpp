#include "measure/backend_policy.hpp"

#include <charconv>
#include <limits>

#include "core/errors.hpp"

namespace readbench {

namespace {
constexpr std::string_view kDevicePrefix = "cuda:";
}  // namespace

std::vector<std::string> backend_names(BackendChoice c, const std::vector<int>& devices) {
  std::vector<std::string> out;
  if (c != BackendChoice::cuda) out.push_back("cpu");
  if (c == BackendChoice::cpu) return out;
  if (devices.size() <= 1) {
    out.push_back("cuda");
  } else {
    for (int d : devices) out.push_back(std::string(kDevicePrefix) + std::to_string(d));
  }
  return out;
}

bool is_device_backend(const std::string& name) {
  return name.rfind(kDevicePrefix, 0) == 0;
}

int device_of(const std::string& name) {
  return is_device_backend(name) ? std::stoi(name.substr(kDevicePrefix.size())) : 0;
}

BackendFactory default_backend_factory(int threads, const std::vector<int>& devices) {
  return [threads, devices](const std::string& name) {
    if (name == "cpu") return make_cpu_backend(threads);
    if (is_device_backend(name)) return make_cuda_backend(device_of(name));
    return make_cuda_backend(devices.empty() ? 0 : devices.front());
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
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || d < 0)
      throw InputError("--device '" + std::string(text) +
                       "' is not all, a device index or an increasing list of them (0,1)");
    if (!out.empty() && d <= out.back())
      throw InputError("--device '" + std::string(text) + "': the indices must increase");
    out.push_back(d);
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
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
