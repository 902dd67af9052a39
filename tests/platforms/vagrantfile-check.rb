# Loads vm/Vagrantfile with a stand-in for Vagrant's configuration object,
# checks the two machines and their addresses, and writes the provisioning
# script to a file for shellcheck.
#   ruby tests/platforms/vagrantfile-check.rb vm/Vagrantfile OUT.sh

class Recorder
  attr_reader :calls, :children

  def initialize
    @calls = []
    @children = {}
  end

  def method_missing(name, *args, **kw, &block)
    @calls << [name, args, kw]
    child = (@children[[name, args.first]] ||= Recorder.new)
    block&.call(child)
    child
  end

  def respond_to_missing?(*) = true
end

module Vagrant
  def self.configure(_version)
    yield $config = Recorder.new
  end
end

load ARGV.fetch(0)
vm = $config.children[[:vm, nil]]
want = { "server" => "192.0.2.1", "client" => "192.0.2.2" }
want.each do |name, ip|
  node = vm.children[[:define, name]]&.children&.[]([:vm, nil])
  abort "no machine #{name}" unless node
  net = node.calls.find { |c| c[0] == :network }
  abort "#{name}: address #{net.inspect}, want #{ip}" unless net && net[2][:ip] == ip
  prov = node.calls.find { |c| c[0] == :provision }
  abort "#{name}: no shell provisioning" unless prov && prov[2][:inline]
  abort "#{name}: provisioning does not create rxe0" unless prov[2][:inline].include?("rdma link add rxe0")
end
File.write(ARGV.fetch(1), "#!/bin/bash\n" + PROVISION)
puts "server and client defined"
