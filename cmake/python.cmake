# The Python module `import paratune` (src/python/ and python/, docs/python.md): the option, the
# extension built into build/<preset>/python/paratune/ beside the package's Python files, its
# install rule, and the pytest files registered as CTest tests.
#
# Included by CMakeLists.txt before the rooms: with the module on, every room's static library is
# compiled as position-independent code so that the extension (a shared object) can link them.

# Debian's interpreter first: scripts/install-deps.sh installs pybind11 and pytest into it, and an
# interpreter earlier on PATH (pyenv, a virtualenv) may have neither. -DPython3_EXECUTABLE=...
# picks another (it needs pytest for the tests, and the module loads only into that Python).
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
set(paratune_python_found OFF)
if(NOT DEFINED PARATUNE_PYTHON OR PARATUNE_PYTHON)
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    find_package(pybind11 CONFIG)
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(paratune_python_found ON)
  else()
    message(STATUS "paratune: Python 3 (Interpreter, Development.Module) or pybind11 not found: the Python module "
                   "is not built (scripts/install-deps.sh installs them; docs/python.md)")
  endif()
endif()
# Off in the sanitizer presets: an extension instrumented with AddressSanitizer cannot load into
# an uninstrumented python3 (docs/python.md, "Sanitizers").
option(PARATUNE_PYTHON "Build the Python module (pybind11)" ${paratune_python_found})
if(PARATUNE_PYTHON AND NOT paratune_python_found)
  message(FATAL_ERROR "PARATUNE_PYTHON is ON but Python 3 (Interpreter, Development.Module) or pybind11 was not found")
endif()
if(PARATUNE_PYTHON)
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  # GCC's -fPIC otherwise treats every global function as replaceable at load time and stops
  # inlining them within their own file; nothing in paratune is meant to be interposed.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options(-fno-semantic-interposition)
  endif()
  set(PARATUNE_PYTHON_INSTALL_DIR "${Python3_SITEARCH}" CACHE PATH
      "directory `cmake --install` puts the package paratune/ in (default: the interpreter's site-packages)")
endif()

set(PARATUNE_PYTHON_PACKAGE_DIR ${CMAKE_BINARY_DIR}/python/paratune)

# The extension _paratune from the python room's sources, and the package around it.
function(paratune_python_module sources include_dir deps)
  pybind11_add_module(_paratune MODULE NO_EXTRAS ${sources})
  target_include_directories(_paratune PRIVATE ${include_dir})
  target_link_libraries(_paratune PRIVATE ${deps})
  set_target_properties(_paratune PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PARATUNE_PYTHON_PACKAGE_DIR})
  paratune_build_speed(_paratune "")
  file(GLOB package_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/paratune/*)
  foreach(f ${package_files})
    get_filename_component(n ${f} NAME)
    configure_file(${f} ${PARATUNE_PYTHON_PACKAGE_DIR}/${n} COPYONLY)
  endforeach()
  install(TARGETS _paratune LIBRARY DESTINATION ${PARATUNE_PYTHON_INSTALL_DIR}/paratune)
  install(FILES ${package_files} DESTINATION ${PARATUNE_PYTHON_INSTALL_DIR}/paratune)
endfunction()

# One CTest test per python/tests/test_*.py. Where the module or pytest is missing the same tests
# are registered as skipped, saying why, so every build runs the same number of tests (.ci/run
# compares the release and sanitizer counts).
function(paratune_python_tests)
  file(GLOB test_files CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/python/tests/test_*.py)
  set(skip_reason "")
  # In an AddressSanitizer build the extension loads into the uninstrumented python3 only with
  # the compiler's shared ASan runtime preloaded (it holds UBSan's handlers and the coverage
  # callbacks too); leaks are not checked (the interpreter's own are many). The tests run the
  # CLI without the preload (it has the static runtime linked in) and skip their heaviest part
  # (PARATUNE_SANITIZER).
  set(sanitizer_env "")
  if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      set(runtime_name libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
    else()
      set(runtime_name libasan.so)
    endif()
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${runtime_name}
                    OUTPUT_VARIABLE asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT IS_ABSOLUTE "${asan_runtime}" OR NOT EXISTS "${asan_runtime}")
      set(skip_reason "the shared ASan runtime ${runtime_name} was not found (Debian: libclang-rt-14-dev)")
    endif()
    set(sanitizer_env ";LD_PRELOAD=${asan_runtime};PARATUNE_SANITIZER=1")
  endif()
  if(skip_reason)
  elseif(NOT PARATUNE_PYTHON)
    set(skip_reason "PARATUNE_PYTHON is OFF (preset asan, bench or fuzz, or no Python 3 and pybind11)")
  else()
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest" RESULT_VARIABLE no_pytest OUTPUT_QUIET ERROR_QUIET)
    if(no_pytest)
      set(skip_reason "${Python3_EXECUTABLE} cannot import pytest (Debian: python3-pytest)")
      message(STATUS "paratune: ${skip_reason}: the Python tests will be skipped")
    endif()
  endif()
  # The trace generator (tools/gen_kineto_trace) writes the large traces the analyze tests read.
  set(gen_trace_env "")
  if(PARATUNE_BUILD_TOOLS)
    set(gen_trace_env ";PARATUNE_GEN_TRACE=$<TARGET_FILE:paratune_gen_trace>")
  endif()
  foreach(f ${test_files})
    get_filename_component(stem ${f} NAME_WE)
    set(name python_${stem})
    if(skip_reason)
      add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "skipped: ${skip_reason}")
      set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "skipped: ")
    else()
      # No .pytest_cache nor __pycache__ written into the source tree.
      add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${f}
               WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
      set_tests_properties(${name} PROPERTIES TIMEOUT 300 ENVIRONMENT
        "PYTHONPATH=${CMAKE_BINARY_DIR}/python;PYTHONDONTWRITEBYTECODE=1;PARATUNE_BINARY=$<IF:$<BOOL:${PARATUNE_TEST_BINARY}>,${PARATUNE_TEST_BINARY},$<TARGET_FILE:paratune>>;PARATUNE_SOURCE_DIR=${CMAKE_SOURCE_DIR}${gen_trace_env}${sanitizer_env}")
      if(sanitizer_env)
        # The test preset's ASAN_OPTIONS kept, with leak checking off (the last flag wins).
        set_tests_properties(${name} PROPERTIES ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
      endif()
    endif()
  endforeach()
endfunction()
