.output-ppc64le/snapshot.o: user/snapshot.c user/snapshot.h \
 include/iomapdirty.h
user/snapshot.h:
include/iomapdirty.h:
