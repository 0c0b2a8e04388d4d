# The install layout and the Debian packages made from it (docs/deploy.md, "Packages").
#
#   cmake --install build [--prefix /usr/local]        PREFIX/bin, PREFIX/share/gammalab, PREFIX/lib/systemd/system
#   cd build && cpack                                  gammalab-{common,server,worker,cli,trainer}_VERSION_ARCH.deb
#
# The binaries find configs/ and web/ in PREFIX/share/gammalab, relative to themselves (core/config_paths.h), so
# an installed tree can be moved to any prefix; the worker finds gammalab-train beside itself; the units start
# the binaries by name, which systemd looks up in /usr/local/bin, then /usr/bin (systemd.service(5),
# "Command lines"). The container images copy the same layout (deploy/docker/collect-runtime.sh).
set(GAMMALAB_SHARE_DIR "${CMAKE_INSTALL_DATADIR}/gammalab")
# Installing (and cpack, which installs) takes the binaries as built, without first building every target:
# `make package` builds the four binaries alone, not the tests and benchmarks.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

# Every binary reads the shared files: the model presets (configs/models) at least.
install(DIRECTORY configs/ DESTINATION "${GAMMALAB_SHARE_DIR}/configs" COMPONENT common)
install(FILES deploy/systemd/gammalab.env deploy/systemd/server.env deploy/systemd/worker.env
              deploy/systemd/worker-gpu0-3.env
        DESTINATION "${GAMMALAB_SHARE_DIR}/examples" COMPONENT common)

if(GAMMALAB_TRAINER)
  install(TARGETS gammalab-train RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT trainer)
  if(TARGET gammalab-spm)  # the SentencePiece helper, found beside the trainer (worker/trainer/data/tokenizer.cpp)
    install(TARGETS gammalab-spm RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT trainer)
  endif()
endif()

if(GAMMALAB_SERVICES)
  install(TARGETS gammalab-server RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT server)
  install(TARGETS gammalab-worker RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT worker)
  install(TARGETS gammalab RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT cli)
  install(FILES deploy/systemd/gammalab-server.service DESTINATION lib/systemd/system COMPONENT server)
  install(FILES deploy/systemd/gammalab-worker@.service DESTINATION lib/systemd/system COMPONENT worker)
  # The dashboard (served by the server, inlined by `gammalab report`) with the uPlot files it loads, in the
  # source tree's shape: web/node_modules/uplot/dist. uPlot comes from npm (`npm ci` in web/, run by make deps).
  install(CODE "
    if(NOT EXISTS \"${CMAKE_SOURCE_DIR}/web/node_modules/uplot/dist/uPlot.iife.min.js\")
      message(FATAL_ERROR \"install: web/node_modules/uplot is missing: run `npm ci` in web/ (make deps does)\")
    endif()" COMPONENT common)
  install(DIRECTORY web/ DESTINATION "${GAMMALAB_SHARE_DIR}/web" COMPONENT common
          FILES_MATCHING PATTERN "*.html" PATTERN "*.js" PATTERN "*.css"
          PATTERN "node_modules" EXCLUDE PATTERN "test" EXCLUDE PATTERN "tools" EXCLUDE)
  install(DIRECTORY web/node_modules/uplot/dist/ DESTINATION "${GAMMALAB_SHARE_DIR}/web/node_modules/uplot/dist"
          COMPONENT common FILES_MATCHING PATTERN "*.js" PATTERN "*.css")
  install(FILES web/node_modules/uplot/LICENSE DESTINATION "${GAMMALAB_SHARE_DIR}/web/node_modules/uplot"
          COMPONENT common)
endif()

# Debian packages, one per component: gammalab-common (configs, dashboard files, example settings) and one per
# binary. Library dependencies are read from the binaries (dpkg-shlibdeps), so they name Debian's packages of
# the libraries this build linked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gammalab)
set(CPACK_PACKAGE_VENDOR gammalab)
set(CPACK_PACKAGE_CONTACT "gammalab maintainers <gammalab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "scale-vector studies of LLM pre-training")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_STRIP_FILES ON)  # the packages carry no debug information (a build folder keeps it)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_COMPONENT_COMMON_DESCRIPTION "gammalab: model presets, example sweeps, the dashboard's files")
set(CPACK_DEBIAN_COMMON_PACKAGE_CONTROL_EXTRA "${CMAKE_SOURCE_DIR}/deploy/debian/postinst"
    "${CMAKE_SOURCE_DIR}/deploy/debian/postrm")
set(CPACK_DEBIAN_COMMON_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_COMMON_PACKAGE_ARCHITECTURE all)
if(GAMMALAB_TRAINER)
  set(CPACK_COMPONENT_TRAINER_DESCRIPTION "gammalab-train: the LibTorch trainer of every scale-vector variant")
  set(CPACK_COMPONENT_TRAINER_DEPENDS common)
endif()
if(GAMMALAB_SERVICES)
  set(CPACK_COMPONENT_SERVER_DESCRIPTION "gammalab-server: the coordinator (gRPC, SQLite, dashboard, HTTP API)")
  set(CPACK_COMPONENT_SERVER_DEPENDS common)
  set(CPACK_COMPONENT_WORKER_DESCRIPTION "gammalab-worker: leases jobs and runs gammalab-train for them")
  set(CPACK_COMPONENT_WORKER_DEPENDS common)
  if(GAMMALAB_TRAINER)
    list(APPEND CPACK_COMPONENT_WORKER_DEPENDS trainer)
  endif()
  set(CPACK_COMPONENT_CLI_DESCRIPTION "gammalab: the command line (plan, submit, watch, fit, report)")
  set(CPACK_COMPONENT_CLI_DEPENDS common)
endif()
include(CPack)
