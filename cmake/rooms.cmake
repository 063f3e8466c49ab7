# The rooms of the library, bottom to top, each with the rooms it may include. This is the one
# list: CMake builds one static library per room from it, compiles each room against an include
# directory that holds only the rooms named here (so an include that points up does not build),
# and src/util/rooms_test.cc checks every #include of the sources and docs/architecture.md
# against it. A room's dependencies are transitive: naming `cost` also allows what cost allows.
paratune_room(util)
paratune_room(model DEPS util)
paratune_room(hardware DEPS util)
# The documents the producers write and the report, the registry and the bindings read: their
# term lists and the structs they describe, below both.
paratune_room(schema DEPS util)
paratune_room(layout DEPS model hardware)
paratune_room(scenario DEPS layout)
paratune_room(cost DEPS layout schema)
paratune_room(timeline DEPS util)
paratune_room(pipeline DEPS timeline layout)
paratune_room(step DEPS cost pipeline scenario)
paratune_room(plan DEPS step)
paratune_room(emit DEPS plan)
paratune_room(validate DEPS step)
paratune_room(trace DEPS util)
paratune_room(analysis DEPS trace timeline)
paratune_room(compare DEPS analysis step)
paratune_room(diagnose DEPS compare plan)
paratune_room(scheduling DEPS plan)
paratune_room(report DEPS schema compare diagnose scheduling)
paratune_room(runs DEPS validate diagnose scheduling)
# The Python module (cmake/python.cmake): beside cli at the top, calling the library, never the CLI.
paratune_room(python DEPS plan emit scenario diagnose validate report scheduling runs)
paratune_room(cli DEPS plan emit validate compare scenario diagnose scheduling report runs)
