.output-ppc64le/engine.o: user/engine.c user/engine.h user/plan.h \
 user/facts.h include/iomapdirty.h user/programs.h user/snapshot.h \
 user/fsinfo.h .output-ppc64le/iomapdirty.skel.h
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
user/fsinfo.h:
.output-ppc64le/iomapdirty.skel.h:
