; Inno Setup script: installs the folder built by packaging\build.py for the current user,
; with a Start-menu entry and .sense7 files opening in sense7-coder.
; Compile with:  iscc /DVersion=0.2.0 /DSource=dist\sense7-coder-0.2.0-windows-x86_64 packaging\windows\sense7-coder.iss
#ifndef Version
  #define Version "0.0.0"
#endif
#ifndef Source
  #error Pass /DSource=<the bundle folder>
#endif

[Setup]
AppId={{5B2F0C9E-7A40-4C55-9A1E-53374350C0DE}
AppName=sense7-coder
AppVersion={#Version}
DefaultDirName={localappdata}\Programs\sense7-coder
DefaultGroupName=sense7-coder
PrivilegesRequired=lowest
ChangesAssociations=yes
OutputBaseFilename=sense7-coder-{#Version}-setup
OutputDir=dist
Compression=lzma2
SolidCompression=yes

[Files]
Source: "{#Source}\*"; DestDir: "{app}"; Flags: recursesubdirs ignoreversion

[Icons]
Name: "{group}\sense7-coder"; Filename: "{app}\sense7-coder.exe"
Name: "{group}\Uninstall sense7-coder"; Filename: "{uninstallexe}"

[Registry]
Root: HKCU; Subkey: "Software\Classes\.sense7"; ValueType: string; ValueName: ""; ValueData: "sense7coder.project"; Flags: uninsdeletevalue
Root: HKCU; Subkey: "Software\Classes\sense7coder.project"; ValueType: string; ValueName: ""; ValueData: "sense7-coder project"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\sense7coder.project\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\sense7-coder.exe,0"
Root: HKCU; Subkey: "Software\Classes\sense7coder.project\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\sense7-coder.exe"" gui ""%1"""
