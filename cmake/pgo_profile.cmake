# Runs the instrumented trainer and hands its counts to the core's objects
# (CMakeLists.txt, CLOUDNOISE_PGO). Counts from an earlier training are
# removed first: gcc adds to an existing .gcda rather than replacing it.
file(GLOB_RECURSE old_counts ${TRAIN_OBJECTS}/*.gcda ${CORE_OBJECTS}/*.gcda)
if(old_counts)
  file(REMOVE ${old_counts})
endif()
execute_process(COMMAND ${TRAINER} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the engine's profile training failed (${status}); build without it: "
                      "pip install . -Ccmake.define.CLOUDNOISE_PGO=OFF (cmake: -DCLOUDNOISE_PGO=OFF)")
endif()
file(GLOB_RECURSE counts RELATIVE ${TRAIN_OBJECTS} ${TRAIN_OBJECTS}/*.gcda)
foreach(f ${counts})
  get_filename_component(dir ${CORE_OBJECTS}/${f} DIRECTORY)
  file(COPY ${TRAIN_OBJECTS}/${f} DESTINATION ${dir})
endforeach()
file(TOUCH ${STAMP})
