.output-ppc64le/sampler.o: user/sampler.c user/sampler.h user/commands.h \
 user/session.h user/engine.h user/plan.h user/facts.h \
 include/iomapdirty.h user/programs.h user/snapshot.h user/fsinfo.h \
 user/report.h
user/sampler.h:
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
