"""The migration engines: Live Guest Relocation, PowerVM LPM, VMware Storage vMotion and
pausing (suspend/resume, STOP/BEGIN), with their shared life cycle."""
