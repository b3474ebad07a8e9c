#include "plugins/elf_check.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/errors.hpp"

namespace readbench {

namespace {

#if defined(__x86_64__)
constexpr std::uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t kMachine = EM_AARCH64;
#else
#error "name this architecture's ELF machine (EM_...) for the plugin check"
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kByteOrder = ELFDATA2LSB;
#else
constexpr unsigned char kByteOrder = ELFDATA2MSB;
#endif

std::string machine_name(std::uint16_t m) {
  switch (m) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "AArch64";
    case EM_386:
      return "x86 (32-bit)";
    case EM_ARM:
      return "ARM (32-bit)";
    case EM_RISCV:
      return "RISC-V";
    case EM_PPC64:
      return "PowerPC 64";
    case EM_S390:
      return "s390";
    default:
      return "ELF machine " + std::to_string(m);
  }
}

std::string type_name(std::uint16_t t) {
  switch (t) {
    case ET_EXEC:
      return "an executable (ET_EXEC)";
    case ET_REL:
      return "an object file (ET_REL), not linked into a library";
    case ET_CORE:
      return "a core dump (ET_CORE)";
    default:
      return "an ELF file of type " + std::to_string(t);
  }
}

class ElfFile {
 public:
  explicit ElfFile(const std::string& file) : file_(file) {
    fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) refuse(std::string("cannot open it: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
      const int err = errno;
      ::close(fd_);  // a constructor that throws runs no destructor
      refuse(std::string("cannot stat it: ") + std::strerror(err));
    }
    size_ = std::uint64_t(st.st_size);
  }
  ~ElfFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  std::uint64_t size() const { return size_; }

  [[noreturn]] void refuse(const std::string& what) const {
    throw InputError("cannot load plugin " + file_ + ": " + what);
  }

  // Refuses unless [offset, offset + count * entry) lies inside the file; `what` names it.
  void require_inside(std::uint64_t offset, std::uint64_t count, std::uint64_t entry,
                      const std::string& what) const {
    if (count == 0 || entry == 0) return;
    const bool inside = offset <= size_ && count <= (size_ - offset) / entry;
    if (inside) return;
    std::uint64_t bytes = 0, end = 0;
    const bool overflows =
        __builtin_mul_overflow(count, entry, &bytes) || __builtin_add_overflow(offset, bytes, &end);
    const std::string end_text = overflows ? "past 2^64" : "at byte " + std::to_string(end);
    refuse("truncated or damaged: its ELF headers place " + what + " ending " + end_text +
           ", past the end of the file (" + std::to_string(size_) + " bytes)");
  }

  // Reads `count` entries of T at `offset`, which require_inside has checked.
  template <class T>
  std::vector<T> read(std::uint64_t offset, std::size_t count) const {
    std::vector<T> out(count);
    const std::size_t bytes = count * sizeof(T);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t n = ::pread(fd_, reinterpret_cast<char*>(out.data()) + done, bytes - done,
                                off_t(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) refuse(std::string("cannot read it: ") + std::strerror(errno));
      if (n == 0) refuse("it became shorter while being read");
      done += std::size_t(n);
    }
    return out;
  }

 private:
  std::string file_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace

void require_elf_library(const std::string& file) {
  const ElfFile f(file);
  const std::string_view magic(ELFMAG, SELFMAG);
  if (f.size() < SELFMAG || f.read<char>(0, SELFMAG) != std::vector<char>(magic.begin(), magic.end()))
    f.refuse("not an ELF shared library (it does not start with the ELF magic number)");
  if (f.size() < EI_NIDENT)
    f.refuse("truncated: " + std::to_string(f.size()) + " bytes, shorter than an ELF header");
  const std::vector<unsigned char> ident = f.read<unsigned char>(0, EI_NIDENT);
  if (ident[EI_CLASS] != ELFCLASS64)
    f.refuse(ident[EI_CLASS] == ELFCLASS32
                 ? "a 32-bit ELF file; this readbench is 64-bit"
                 : "an ELF file of unknown class " + std::to_string(ident[EI_CLASS]));
  if (ident[EI_DATA] != kByteOrder)
    f.refuse(std::string("an ELF file of the other byte order; this readbench is ") +
             (kByteOrder == ELFDATA2LSB ? "little-endian" : "big-endian"));
  if (f.size() < sizeof(Elf64_Ehdr))
    f.refuse("truncated: " + std::to_string(f.size()) + " bytes, shorter than an ELF header (" +
             std::to_string(sizeof(Elf64_Ehdr)) + " bytes)");
  const Elf64_Ehdr h = f.read<Elf64_Ehdr>(0, 1)[0];
  if (h.e_type != ET_DYN) f.refuse(type_name(h.e_type) + ", not a shared library (ET_DYN)");
  if (h.e_machine != kMachine)
    f.refuse("built for " + machine_name(h.e_machine) + "; this readbench runs on " +
             machine_name(kMachine));
  if (h.e_ehsize < sizeof(Elf64_Ehdr))
    f.refuse("a damaged ELF header (it says it is " + std::to_string(h.e_ehsize) + " bytes, not " +
             std::to_string(sizeof(Elf64_Ehdr)) + ")");

  // Section 0 holds the real counts where they do not fit the header's 16 bits (PN_XNUM, and a
  // section count of 0 beside a section header table).
  std::uint64_t sections = h.e_shnum, segments = h.e_phnum;
  if (h.e_shoff != 0 && h.e_shentsize != sizeof(Elf64_Shdr))
    f.refuse("a damaged ELF header (section header entries of " + std::to_string(h.e_shentsize) +
             " bytes, not " + std::to_string(sizeof(Elf64_Shdr)) + ")");
  if (h.e_shoff != 0 && (sections == 0 || segments == PN_XNUM)) {
    f.require_inside(h.e_shoff, 1, sizeof(Elf64_Shdr), "its section header table");
    const Elf64_Shdr first = f.read<Elf64_Shdr>(h.e_shoff, 1)[0];
    if (sections == 0) sections = first.sh_size;
    if (segments == PN_XNUM) segments = first.sh_info;
  }
  if (segments != 0 && h.e_phentsize != sizeof(Elf64_Phdr))
    f.refuse("a damaged ELF header (program header entries of " + std::to_string(h.e_phentsize) +
             " bytes, not " + std::to_string(sizeof(Elf64_Phdr)) + ")");
  if (segments == 0) f.refuse("an ELF file with no program headers: nothing to load");

  f.require_inside(h.e_phoff, segments, sizeof(Elf64_Phdr), "its program header table");
  const std::vector<Elf64_Phdr> ph = f.read<Elf64_Phdr>(h.e_phoff, std::size_t(segments));
  for (std::size_t i = 0; i < ph.size(); ++i)
    if (ph[i].p_type != PT_NULL)
      f.require_inside(
          ph[i].p_offset, 1, ph[i].p_filesz,
          "segment " + std::to_string(i) + (ph[i].p_type == PT_LOAD ? " (loaded)" : ""));
  if (h.e_shoff == 0) return;
  f.require_inside(h.e_shoff, sections, sizeof(Elf64_Shdr), "its section header table");
  const std::vector<Elf64_Shdr> sh = f.read<Elf64_Shdr>(h.e_shoff, std::size_t(sections));
  for (std::size_t i = 1; i < sh.size(); ++i)
    if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_type != SHT_NULL)
      f.require_inside(sh[i].sh_offset, 1, sh[i].sh_size, "section " + std::to_string(i));
}

}  // namespace readbench
