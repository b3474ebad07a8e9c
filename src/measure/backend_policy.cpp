#include "measure/backend_policy.hpp"

#include "core/errors.hpp"

namespace readbench {

std::vector<std::string> backend_names(BackendChoice c) {
  switch (c) {
    case BackendChoice::cpu:
      return {"cpu"};
    case BackendChoice::cuda:
      return {"cuda"};
    case BackendChoice::all:
    case BackendChoice::auto_:
      return {"cpu", "cuda"};
  }
  return {};
}

BackendFactory default_backend_factory(int threads, int device) {
  return [threads, device](const std::string& name) {
    return name == "cpu" ? make_cpu_backend(threads) : make_cuda_backend(device);
  };
}

void validate_backend_options(int threads, int device) {
  if (threads < 0) throw InputError("--threads must be >= 0, got " + std::to_string(threads));
  if (device < 0) throw InputError("--device must be >= 0, got " + std::to_string(device));
}

void for_each_backend(BackendChoice choice, const BackendFactory& open,
                      const std::function<bool(const std::string& name, Backend&)>& use,
                      const std::function<void(const std::string& name, Status status,
                                               const std::string& why)>& skipped) {
  const bool explicit_choice = choice == BackendChoice::cpu || choice == BackendChoice::cuda;
  for (const std::string& name : backend_names(choice)) {
    auto skip = [&](Status status, const char* why) {
      if (explicit_choice) throw InputError("--backend " + name + " cannot run: " + why);
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
