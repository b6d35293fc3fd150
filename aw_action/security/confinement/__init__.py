"""Process confinement: who the agent's tools run as, the one way to start a process, the kernel
sandbox (Landlock, seccomp, ``no_new_privs``) and its exec wrapper, the tools' environment, every
agent process ended with the run, and the harness process itself hardened (not dumpable, stdout
reserved, nothing imported from the working directory)."""
