# The protocol constants, generated from the one file the probe also reads
# (../compilescope_probe/protocol.json, found beside this file so it works in
# the standalone runner build and in compilescope's own tree alike):
#   cs_generate_protocol_header(OUTPUT <header> NAMESPACE <c++ namespace>)
# writes <header> with `version`, one `event::<name>` constant per event and
# the `events` array. C++17 is enough to include it. Regenerated when
# protocol.json changes.
set(CS_PROTOCOL_JSON "${CMAKE_CURRENT_LIST_DIR}/../compilescope_probe/protocol.json")
get_filename_component(CS_PROTOCOL_JSON "${CS_PROTOCOL_JSON}" ABSOLUTE)

function(cs_generate_protocol_header)
  cmake_parse_arguments(ARG "" "OUTPUT;NAMESPACE" "" ${ARGN})
  if(NOT ARG_OUTPUT OR NOT ARG_NAMESPACE)
    message(FATAL_ERROR "cs_generate_protocol_header: OUTPUT and NAMESPACE are required")
  endif()
  if(NOT EXISTS "${CS_PROTOCOL_JSON}")
    message(FATAL_ERROR "cs_generate_protocol_header: ${CS_PROTOCOL_JSON} is missing "
                        "(probe/aoti_runner must sit beside probe/compilescope_probe)")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CS_PROTOCOL_JSON}")
  file(READ "${CS_PROTOCOL_JSON}" _protocol)
  string(JSON _protocol_version GET "${_protocol}" protocol)
  string(JSON _event_count LENGTH "${_protocol}" events)
  math(EXPR _last "${_event_count} - 1")
  set(_event_lines "")
  set(_event_list "")
  foreach(i RANGE ${_last})
    string(JSON _name GET "${_protocol}" events ${i})
    string(APPEND _event_lines "inline constexpr const char* ${_name} = \"${_name}\";\n")
    string(APPEND _event_list "\"${_name}\", ")
  endforeach()
  file(CONFIGURE OUTPUT "${ARG_OUTPUT}" CONTENT "// Generated from probe/compilescope_probe/protocol.json. Do not edit.
#pragma once
#include <array>
#include <string_view>
namespace ${ARG_NAMESPACE} {
inline constexpr int version = ${_protocol_version};
namespace event {
${_event_lines}}
inline constexpr std::array<std::string_view, ${_event_count}> events{${_event_list}};
}
")
endfunction()
