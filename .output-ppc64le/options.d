.output-ppc64le/options.o: user/options.c user/commands.h user/session.h \
 user/engine.h user/plan.h user/facts.h include/iomapdirty.h \
 user/programs.h user/snapshot.h user/fsinfo.h user/report.h
user/commands.h:
user/session.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
user/fsinfo.h:
user/report.h:
