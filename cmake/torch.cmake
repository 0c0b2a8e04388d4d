# LibTorch: Debian's (libtorch-dev, found by default) or the one inside a PyTorch install, named by
# -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')".
# Sets TORCH_INSTALL_PREFIX, TORCH_INCLUDE_DIRS, TORCH_LIBRARIES and TORCH_CXX_FLAGS, as TorchConfig.cmake does,
# and TORCH_LINK_OPTIONS, which every program linking LibTorch takes (see below).
#
# A CUDA build of PyTorch (the package index's default) makes TorchConfig.cmake enable CMake's CUDA language,
# which needs a CUDA toolkit with nvcc. A machine with PyTorch from the package index has none, and nothing here
# is CUDA code: the trainer reaches LibTorch's CUDA paths (devices, autocast, NCCL) through its C++ API, which
# needs only the headers of the CUDA runtime and NCCL, and those come in the NVIDIA wheels beside torch. So when
# that LibTorch is a CUDA build and no nvcc is found, its exported targets are imported directly, with the
# CUDA runtime target that its config would have made taken from those wheels.
set(_torch_cmake_dir "")
foreach(_prefix IN LISTS CMAKE_PREFIX_PATH)
  if(EXISTS "${_prefix}/Torch/TorchConfig.cmake" AND EXISTS "${_prefix}/Caffe2/Caffe2Targets.cmake")
    set(_torch_cmake_dir "${_prefix}")
    break()
  endif()
endforeach()
set(_torch_cuda_without_toolkit OFF)
if(_torch_cmake_dir)
  file(STRINGS "${_torch_cmake_dir}/Caffe2/Caffe2Config.cmake" _torch_uses_cuda REGEX "set\\(CAFFE2_USE_CUDA ON\\)")
  find_program(GAMMALAB_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda PATH_SUFFIXES bin)
  if(_torch_uses_cuda AND NOT GAMMALAB_NVCC)
    set(_torch_cuda_without_toolkit ON)
  endif()
endif()

# PyTorch's own libtorch.so (the package index's builds) exports copies of libstdc++ functions, std::filesystem
# among them, that crash when a program calls them (remove_all jumps to address 0). A program that links
# libtorch.so before libstdc++, as every link line does, binds to those copies. Naming libstdc++ first makes
# the C++ library's own definitions the ones found; harmless with a LibTorch that exports none (Debian's).
set(TORCH_LINK_OPTIONS "LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")

if(NOT _torch_cuda_without_toolkit)
  find_package(Torch REQUIRED)
  return()
endif()

get_filename_component(TORCH_INSTALL_PREFIX "${_torch_cmake_dir}/../.." ABSOLUTE)  # site-packages/torch
get_filename_component(_site_packages "${TORCH_INSTALL_PREFIX}/.." ABSOLUTE)
file(GLOB _nvidia_includes LIST_DIRECTORIES true "${_site_packages}/nvidia/*/include")
find_path(GAMMALAB_CUDA_RUNTIME_INCLUDE cuda_runtime_api.h HINTS ${_nvidia_includes} NO_DEFAULT_PATH)
file(GLOB _cudart_libraries "${_site_packages}/nvidia/*/lib/libcudart.so*")
if(NOT GAMMALAB_CUDA_RUNTIME_INCLUDE OR NOT _cudart_libraries)
  message(FATAL_ERROR "LibTorch at ${TORCH_INSTALL_PREFIX} is a CUDA build, no nvcc was found, and the CUDA runtime's "
                      "headers and library are not beside it in ${_site_packages}/nvidia (pip installs them with "
                      "torch): install PyTorch with its dependencies, or a CUDA toolkit and set CUDA_HOME")
endif()
# LibTorch's CUDA headers (NCCL's process group among them) include the CUDA compiler's host headers and CCCL,
# which pip installs only when asked: name the two packages rather than fail in the middle of the build.
find_path(GAMMALAB_CUDA_CRT_INCLUDE crt/host_config.h HINTS ${_nvidia_includes} NO_DEFAULT_PATH)
find_path(GAMMALAB_CUDA_CCCL_INCLUDE nv/target HINTS ${_nvidia_includes} NO_DEFAULT_PATH)
if(NOT GAMMALAB_CUDA_CRT_INCLUDE OR NOT GAMMALAB_CUDA_CCCL_INCLUDE)
  file(GLOB _cudart_dist "${_site_packages}/nvidia_cuda_runtime-*.dist-info")
  string(REGEX MATCH "nvidia_cuda_runtime-([0-9]+\\.[0-9]+)" _match "${_cudart_dist}")
  set(_cuda_version "${CMAKE_MATCH_1}")
  message(FATAL_ERROR "LibTorch at ${TORCH_INSTALL_PREFIX} is a CUDA build and its headers need the CUDA headers "
                      "crt/host_config.h and nv/target, which are not in ${_site_packages}/nvidia: pip install "
                      "\"nvidia-cuda-crt==${_cuda_version}.*\" \"nvidia-cuda-cccl==${_cuda_version}.*\" into that "
                      "environment (or install a CUDA toolkit and set CUDA_HOME)")
endif()
list(GET _cudart_libraries 0 _cudart_library)
message(STATUS "LibTorch at ${TORCH_INSTALL_PREFIX}: a CUDA build, imported without a CUDA toolkit (CUDA runtime "
               "headers from ${GAMMALAB_CUDA_RUNTIME_INCLUDE})")

add_library(torch::cudart INTERFACE IMPORTED)
set_target_properties(torch::cudart PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_nvidia_includes}"
                                               INTERFACE_LINK_LIBRARIES "${_cudart_library}")
add_library(caffe2::mkl INTERFACE IMPORTED)  # the wheel's libtorch_cpu holds MKL itself
if(NOT TARGET protobuf::libprotobuf)         # and protobuf
  add_library(protobuf::libprotobuf INTERFACE IMPORTED)
endif()
include("${_torch_cmake_dir}/Caffe2/Caffe2Targets.cmake")

set(TORCH_INCLUDE_DIRS "${TORCH_INSTALL_PREFIX}/include" "${TORCH_INSTALL_PREFIX}/include/torch/csrc/api/include"
                       ${_nvidia_includes})
set(TORCH_LIBRARIES torch torch_library c10 c10_cuda)
set(TORCH_CXX_FLAGS "")
set(Torch_FOUND ON)
