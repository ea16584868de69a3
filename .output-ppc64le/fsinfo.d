.output-ppc64le/fsinfo.o: user/fsinfo.c user/fsinfo.h
user/fsinfo.h:
