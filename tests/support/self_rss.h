// This process's resident memory, for the tests that bound it (flood, soak).
#pragma once

#include <cstdio>
#include <unistd.h>

namespace cs::test {

inline double selfRssMiB() {
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) /
           (1024.0 * 1024.0);
}

} // namespace cs::test
