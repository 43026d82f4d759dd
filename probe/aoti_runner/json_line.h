// One JSON object on one line, built by appending: the AOTInductor runner's
// events. No JSON library, so the runner builds wherever a compiler, CMake and
// libtorch are. Strings are escaped (control characters as \u00XX; bytes that
// are not valid UTF-8 become U+FFFD, as the probe's "replace" does), doubles
// that are not finite become null (NaN is not JSON).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace cs::aoti {

// s, quoted and escaped, appended to out.
inline void appendJsonString(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    out += "\\u00";
                    out.push_back(kHex[c >> 4]);
                    out.push_back(kHex[c & 0xf]);
                } else {
                    out.push_back(static_cast<char>(c));
                }
            }
            ++i;
            continue;
        }
        // A multi-byte sequence: copied when it is valid UTF-8 (no overlongs,
        // no surrogates, at most U+10FFFF), else one U+FFFD for its first byte.
        size_t len = 0;
        uint32_t cp = 0;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1fu;
        } else if (c >= 0xe0 && c <= 0xef) {
            len = 3;
            cp = c & 0x0fu;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07u;
        }
        bool ok = len != 0 && i + len <= s.size();
        for (size_t k = 1; ok && k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            ok = (cc & 0xc0u) == 0x80u;
            cp = (cp << 6) | (cc & 0x3fu);
        }
        if (ok) {
            ok = !(len == 3 && cp < 0x800) && !(len == 4 && (cp < 0x10000 || cp > 0x10ffff)) &&
                 !(cp >= 0xd800 && cp <= 0xdfff);
        }
        if (ok) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            out += "\xef\xbf\xbd";
            ++i;
        }
    }
    out.push_back('"');
}

inline void appendJsonNumber(std::string& out, double v) {
    if (!std::isfinite(v)) {
        out += "null";
        return;
    }
    char buf[32];
    const int n = std::snprintf(buf, sizeof buf, "%.17g", v);
    out.append(buf, static_cast<size_t>(n));
}

// A JSON object (or array) built field by field; nested objects and arrays by
// beginObject/beginArray ... end. Keys are written as given (escaped).
class JsonLine {
  public:
    JsonLine() { beginObject(); }

    JsonLine& key(std::string_view k) {
        separate();
        appendJsonString(text_, k);
        text_.push_back(':');
        afterKey_ = true;
        return *this;
    }
    JsonLine& value(std::string_view v) {
        separate();
        appendJsonString(text_, v);
        return *this;
    }
    JsonLine& value(const char* v) { return value(std::string_view(v)); }
    JsonLine& value(const std::string& v) { return value(std::string_view(v)); }
    JsonLine& value(bool v) {
        separate();
        text_ += v ? "true" : "false";
        return *this;
    }
    JsonLine& value(int v) { return value(static_cast<long long>(v)); }
    JsonLine& value(long v) { return value(static_cast<long long>(v)); }
    JsonLine& value(long long v) {
        separate();
        text_ += std::to_string(v);
        return *this;
    }
    JsonLine& value(unsigned long v) { return value(static_cast<unsigned long long>(v)); }
    JsonLine& value(unsigned long long v) {
        separate();
        text_ += std::to_string(v);
        return *this;
    }
    JsonLine& value(double v) {
        separate();
        appendJsonNumber(text_, v);
        return *this;
    }
    JsonLine& null() {
        separate();
        text_ += "null";
        return *this;
    }
    template <typename T> JsonLine& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }
    JsonLine& nullField(std::string_view k) {
        key(k);
        return null();
    }
    template <typename T> JsonLine& array(std::string_view k, const std::vector<T>& values) {
        key(k);
        beginArray();
        for (const T& v : values) {
            value(v);
        }
        return end();
    }

    JsonLine& beginObject() { return open('{'); }
    JsonLine& beginArray() { return open('['); }
    JsonLine& end() {
        if (!open_.empty()) {
            text_.push_back(open_.back() == '{' ? '}' : ']');
            open_.pop_back();
            first_ = false;
        }
        return *this;
    }

    // The finished text with every open object and array closed, and a newline.
    std::string line() {
        while (!open_.empty()) {
            end();
        }
        return text_ + "\n";
    }

  private:
    JsonLine& open(char bracket) {
        separate();
        text_.push_back(bracket);
        open_.push_back(bracket);
        first_ = true;
        return *this;
    }
    // A comma before every element but the first of its container; none
    // between a key and its value.
    void separate() {
        if (afterKey_) {
            afterKey_ = false;
            return;
        }
        if (!first_) {
            text_.push_back(',');
        }
        first_ = false;
    }

    std::string text_;
    std::string open_;
    bool first_ = true;
    bool afterKey_ = false;
};

} // namespace cs::aoti
